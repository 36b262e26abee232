import { EmptyState, Page } from '../components/ui';

export function VerifyView() {
  return (
    <Page title="Verify">
      <EmptyState title="Coming soon" />
    </Page>
  );
}
