import { EmptyState, Page } from '../components/ui';

export function TrustView() {
  return (
    <Page title="Trust store">
      <EmptyState title="Coming soon" />
    </Page>
  );
}
