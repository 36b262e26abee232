import { EmptyState, Page } from '../components/ui';

export function ReceiptsView({ query }: { query: URLSearchParams }) {
  return (
    <Page title="Receipts" subtitle={query.toString()}>
      <EmptyState title="Coming soon" />
    </Page>
  );
}
