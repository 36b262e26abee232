import type { Theme } from '../../src-shared/api/contract';
import { EmptyState, Page } from '../components/ui';

export function SettingsView({ onTheme }: { onTheme: (theme: Theme) => void }) {
  void onTheme;
  return (
    <Page title="Settings">
      <EmptyState title="Coming soon" />
    </Page>
  );
}
