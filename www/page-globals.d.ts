// What the page (not its worker: www/jsconfig.worker.json) uses of the browser that TypeScript's DOM types leave out: the folder picker
// (Chromium's File System Access), the client hints' platform, and the handle the page's tests
// read (`window.copilotLens`, www/app.js).
interface Window {
  showDirectoryPicker?(options?: { mode?: 'read' | 'readwrite'; id?: string }): Promise<FileSystemDirectoryHandle>;
  copilotLens: Record<string, unknown>;
}

/** A change of an input element, as its listeners take it. */
type InputChange = Event & { target: HTMLInputElement };

interface Navigator {
  userAgentData?: { platform: string };
}
