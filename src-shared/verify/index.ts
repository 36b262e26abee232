/**
 * The verification layer's public surface: import from here.
 *
 * `verifyDocument` is the entry point; the rest is the shared infrastructure every format's
 * verifier uses (report builder, key resolution, key files, field checks, the format registry).
 */
export { REPORT_VERSION, STATUS_PRECEDENCE } from './report';
export type {
  Check,
  CheckStatus,
  Report,
  ReportError,
  ReportFormat,
  ReportStatus,
  TrustResult,
  TrustStatus,
} from './report';
export { createVerifyContext } from './context';
export type { KeyAlgorithm, KeyEntry, SecretEntry, VerifyContext } from './context';
export { MAX_SEALED_DEPTH, verifyDocument, verifyParsed } from './verify';
export type { VerifyParsedOptions } from './verify';
export { detectFormat, detectModule, knownFormatNames } from './detect';
export type { Detection } from './detect';
export { formatModules } from './registry';
export type { FormatInput, FormatModule } from './format-module';
export { ReportBuilder, checkStatusOf, singleErrorReport, strongerStatus } from './report-builder';
export type { ErrorInput, FailureStatus } from './report-builder';
export {
  KEY_ALGORITHMS,
  ISSUER_KEY_ID_PATTERN,
  KEY_ID_PATTERN,
  KEY_ID_RULE,
  MAX_KEY_ID_LENGTH,
  PUBLIC_KEY_LENGTH,
  describeKey,
  ed25519KeyEntry,
  findEmbeddedKey,
  findKeyById,
  isIssuerKeyId,
  isKeyId,
  keyIdProblem,
  pinnedTrust,
} from './keys';
export type { KeySource, ResolvedKey } from './keys';
export {
  KeyFileError,
  checkKeySources,
  MAX_LABEL_LENGTH,
  MAX_SECRET_ID_LENGTH,
  SECRET_ID_PATTERN,
  isSecretId,
  parseKeyFile,
  parseKeyFileTree,
  parseSecretsFile,
  serializeKeyFile,
} from './key-file';
export type { KeyFileOptions, NamedKeySource } from './key-file';
export {
  decodeB64Field,
  decodeB64uField,
  decodeHexField,
  describeType,
  isJsonObject,
  isPlainNonNegativeInteger,
  memberNode,
  memberProblems,
  problem,
  quote,
} from './fields';
export type { JsonObject } from './fields';
export { isTimestamp, timestampToMillis } from './timestamp';
export {
  RULE_D1_MEMBERS,
  checkKeyedSignature,
  checkRuleD1,
  ruleD1Payload,
  signRuleD1,
  unresolvedTrust,
} from './signature';
export type { KeyedSignature, RuleD1Options } from './signature';
export { CONFORMANCE_NOW, buildConformanceCases, testSeed } from './conformance';
export type { ConformanceCase, ConformanceExpectation } from './conformance';
