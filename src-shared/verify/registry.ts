/**
 * The table of document formats: the one place a new format is listed.
 *
 * Rows are in the order people see the formats (`evroom sign`'s list, the samples' folders);
 * each row also gives the format's place in detection, where more specific shapes come first:
 * a sealed wrapper before anything it could contain; the ecosystem's formats that name
 * themselves by a member's value (HAHS `protocol`, SMSH-Stamp `v`, Spectral `signature_algo`
 * beside its three signature members) before the formats recognized by member names alone (a
 * HAHS `receipt_id` or a Spectral payload member must not make a document wearable or classical);
 * the countersigner record before the classical receipt, the SiGR chain receipt and the typed-pq envelope before the
 * typed contract. The first module whose
 * `detect` recognizes a document verifies it. Adding a format is one row below plus its folder.
 *
 * The tables are built on first use rather than at module load, so an import cycle through a
 * format folder (a format importing the verify index, which imports this registry) cannot catch
 * a format's module object before it is initialized.
 */
import { classicalFormat } from '../formats/classical';
import { countersignerFormat } from '../formats/countersigner';
import { envelopeFormat } from '../formats/envelope';
import { hahsFormat } from '../formats/hahs';
import { profileFormat } from '../formats/profile';
import { reportFormat } from '../formats/report';
import { sealedFormat } from '../formats/sealed';
import { smshStampFormat } from '../formats/smsh-stamp';
import { spectralFormat } from '../formats/spectral';
import { sigrChainFormat } from '../formats/sigr-chain-pq';
import { typedFormat } from '../formats/typed';
import { typedPqFormat } from '../formats/typed-pq';
import { wearableFormat } from '../formats/wearable';
import type { FormatIssuer, FormatModule } from './format-module';

/** One format in the table. */
export interface RegistryRow {
  module: FormatModule;
  /** Its place in detection: lower is asked first. Unique. */
  detection: number;
}

function rows(): readonly RegistryRow[] {
  return [
    { module: classicalFormat, detection: 7 },
    { module: countersignerFormat, detection: 6 },
    { module: sealedFormat, detection: 1 },
    { module: envelopeFormat, detection: 8 },
    { module: wearableFormat, detection: 5 },
    { module: profileFormat, detection: 9 },
    { module: typedFormat, detection: 11 },
    { module: typedPqFormat, detection: 10 },
    { module: reportFormat, detection: 12 },
    { module: hahsFormat, detection: 2 },
    { module: smshStampFormat, detection: 3 },
    { module: spectralFormat, detection: 4 },
    { module: sigrChainFormat, detection: 9.5 },
  ];
}

let table: readonly RegistryRow[] | undefined;
let detectionOrder: readonly FormatModule[] | undefined;
let catalogue: readonly FormatModule[] | undefined;

/**
 * The registry's rows, in the order people see the formats.
 *
 * @returns The frozen rows.
 */
export function registryRows(): readonly RegistryRow[] {
  table ??= Object.freeze(rows().map((row) => Object.freeze({ ...row })));
  return table;
}

/**
 * Every format the verifier knows, in detection order.
 *
 * @returns The frozen table.
 */
export function formatModules(): readonly FormatModule[] {
  detectionOrder ??= Object.freeze(
    [...registryRows()].sort((a, b) => a.detection - b.detection).map((row) => row.module),
  );
  return detectionOrder;
}

/**
 * Every format, in the order people see them (issuers, samples).
 *
 * @returns The frozen list.
 */
export function catalogueModules(): readonly FormatModule[] {
  catalogue ??= Object.freeze(registryRows().map((row) => row.module));
  return catalogue;
}

/**
 * Every kind of document the formats issue from caller fields, in the order people see them.
 *
 * @returns The issuers (e.g. `classical`, ..., `nano`, `standard`, ..., `typed-pq`).
 */
export function formatIssuers(): readonly FormatIssuer[] {
  return catalogueModules().flatMap((module) => module.issuers);
}
