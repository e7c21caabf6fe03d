import { Alert } from 'antd';
import { errorMessage } from '../api/client';

/** A failed load, with the envelope's message. */
export function QueryError({ error }: { error: unknown }) {
  if (!error) return null;
  return <Alert type="error" showIcon role="alert" title={errorMessage(error)} style={{ marginBottom: 16 }} />;
}
