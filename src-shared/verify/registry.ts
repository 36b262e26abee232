/**
 * The table of document formats, in detection order.
 *
 * The first module whose `detect` recognizes a document verifies it. More specific shapes come
 * first: a sealed wrapper before anything it could contain, the countersigner record before the
 * classical receipt. Adding a format is one line in the list below plus its own folder.
 *
 * The table is built on first use rather than at module load, so an import cycle through a
 * format folder (a format importing the verify index, which imports this registry) cannot catch
 * a format's module object before it is initialized.
 */
import { classicalFormat } from '../formats/classical';
import { countersignerFormat } from '../formats/countersigner';
import { envelopeFormat } from '../formats/envelope';
import { profileFormat } from '../formats/profile';
import { reportFormat } from '../formats/report';
import { sealedFormat } from '../formats/sealed';
import { typedFormat } from '../formats/typed';
import { typedPqFormat } from '../formats/typed-pq';
import { wearableFormat } from '../formats/wearable';
import type { FormatModule } from './format-module';

let table: readonly FormatModule[] | undefined;

/**
 * Every format the verifier knows, in detection order.
 *
 * @returns The frozen table.
 */
export function formatModules(): readonly FormatModule[] {
  table ??= Object.freeze([
    sealedFormat,
    wearableFormat,
    countersignerFormat,
    classicalFormat,
    envelopeFormat,
    profileFormat,
    typedPqFormat,
    typedFormat,
    reportFormat,
  ]);
  return table;
}
