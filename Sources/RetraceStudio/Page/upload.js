// Opening a trace from the browser: a .trace or .jsonl file dropped on the page, or picked
// with the Open button, is posted to /api/uploads (docs/STUDIO.md, "Opening a file"), which
// writes it beside the Studio's other uploads and lists it; `opened` then opens it.
import { api } from './api.js';

const SUFFIXES = ['.trace', '.jsonl'];

export function setUpUploads({ opened, report }) {
  const input = document.getElementById('upload-input');
  document.getElementById('upload-button').addEventListener('click', () => input.click());
  input.addEventListener('change', async () => {
    const files = [...input.files];
    input.value = '';
    await uploadAll(files, opened, report);
  });
  // The page shows where to drop while a file is dragged over it.
  let depth = 0;
  const carriesFiles = (event) => [...(event.dataTransfer?.types || [])].includes('Files');
  document.addEventListener('dragenter', (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    depth++;
    document.body.classList.add('dropping');
  });
  document.addEventListener('dragover', (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
  });
  document.addEventListener('dragleave', () => {
    depth = Math.max(0, depth - 1);
    if (!depth) document.body.classList.remove('dropping');
  });
  document.addEventListener('drop', (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    depth = 0;
    document.body.classList.remove('dropping');
    uploadAll([...event.dataTransfer.files], opened, report);
  });
}

async function uploadAll(files, opened, report) {
  for (const file of files) {
    if (!SUFFIXES.some((suffix) => file.name.endsWith(suffix))) {
      report(`${file.name}: only .trace and .jsonl files open in the Studio`, true);
      continue;
    }
    report(`uploading ${file.name} (${(file.size / 1024).toFixed(0)} KiB)…`);
    try {
      const answer = await api('uploads', { name: file.name }, null, 'POST', file);
      await opened(answer);
    } catch (error) {
      // A file over the limit is refused before it is read: the browser may see the
      // connection close rather than the answer.
      report(`${file.name}: ${error.status ? error.message : 'the upload failed (is it larger than the Studio\'s --upload-limit?)'}`, true);
    }
  }
}
