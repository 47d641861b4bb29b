self.onmessage = async (event) => {
  const { op, items } = event.data;
  const t = performance.now();
  let sum = 0;
  if (op === 'stat') for (const f of items) sum += f.size + f.lastModified;
  else if (op === 'read') for (const f of items) sum += new FileReaderSync().readAsArrayBuffer(f).byteLength + f.lastModified;
  else if (op === 'handles') { const fs = await Promise.all(items.map((h) => h.getFile())); for (const f of fs) sum += f.size + f.lastModified; }
  self.postMessage({ ms: performance.now() - t, sum });
};
