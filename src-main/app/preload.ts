/**
 * The preload: exposes exactly one function, `invoke(method, input)`, for the app API contract.
 * Never `ipcRenderer` itself.
 */
import { contextBridge, ipcRenderer } from 'electron';

contextBridge.exposeInMainWorld('evroom', {
  invoke: (method: string, input: unknown): Promise<unknown> => ipcRenderer.invoke('evroom:invoke', method, input),
});
