import type { MessageInstance } from 'antd/es/message/interface';
import { errorMessage } from '../api/client';

/** The antd message API of the mounted <App>, so code outside components can report errors. */
let messageApi: MessageInstance | undefined;
export function setMessageApi(api: MessageInstance) {
  messageApi = api;
}

export function notifyError(error: unknown) {
  void messageApi?.error(errorMessage(error));
}

export function notifyFailure(text: string) {
  void messageApi?.error(text);
}

export function notifySuccess(text: string) {
  void messageApi?.success(text);
}
