/** The only HTTP code: calls the server extension through ServerConnection (token and XSRF handled). */

import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

import { IReport } from './model';

export async function fetchFindings(path: string, settings?: ServerConnection.ISettings): Promise<IReport> {
  const s = settings ?? ServerConnection.makeSettings();
  const url = URLExt.join(s.baseUrl, 'trainguard', 'findings') + URLExt.objectToQueryString({ path });
  const response = await ServerConnection.makeRequest(url, {}, s);
  let data: any = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const message = data && typeof data.message === 'string' ? data.message : response.statusText;
    throw new ServerConnection.ResponseError(response, message);
  }
  return data as IReport;
}
