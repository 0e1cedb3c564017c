"use client";
import { useId, useRef, useState } from "react";
import { formatBytes, formatCount } from "@/components/format";
import type { ImportSummary } from "@/server/sources/dynamo-trace/import";
import "./trace-upload.css";

type FileState =
  | { name: string; size: number; state: "waiting" }
  | { name: string; size: number; state: "uploading"; sent: number }
  | { name: string; size: number; state: "done"; summary: ImportSummary }
  | { name: string; size: number; state: "failed"; error: string };

/** How the files are read: Dynamo traces, or Mooncake-format traces with their tokens per hash id and time zero. */
type Format = { kind: "dynamo" } | { kind: "mooncake"; blockSize: number; start: number | null };

/** The import address for a format (Mooncake options in the query). */
export function importUrl(format: Format): string {
  if (format.kind === "dynamo") return "/api/import";
  const q = new URLSearchParams({ format: "mooncake", block_size: String(format.blockSize) });
  if (format.start !== null) q.set("start", String(format.start));
  return `/api/import?${q}`;
}

/** Upload one file to /api/import with upload progress; resolves with the server's summary or rejects with its error. */
function uploadTrace(file: File, format: Format, onProgress: (sent: number) => void): Promise<ImportSummary> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", importUrl(format));
    xhr.setRequestHeader("content-type", "application/octet-stream");
    xhr.setRequestHeader("x-switchyard-filename", encodeURIComponent(file.name));
    xhr.upload.onprogress = (e) => onProgress(e.loaded);
    xhr.onload = () => {
      let body: unknown = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        /* not JSON */
      }
      if (xhr.status === 200 && body) resolve(body as ImportSummary);
      else reject(new Error((body as { error?: string } | null)?.error ?? `upload failed (HTTP ${xhr.status})`));
    };
    xhr.onerror = () => reject(new Error("upload failed: the dashboard could not be reached"));
    xhr.send(file);
  });
}

/** Upload Dynamo agent / FPM trace files (JSONL or gzip JSONL): a progress bar per file and what each import gave. */
export function TraceUpload() {
  const inputId = useId();
  const input = useRef<HTMLInputElement>(null);
  const [files, setFiles] = useState<FileState[]>([]);
  const [kind, setKind] = useState<"dynamo" | "mooncake">("dynamo");
  const [blockSize, setBlockSize] = useState("512");
  const [startMs, setStartMs] = useState("");
  const blockSizeOk = /^[1-9]\d{0,6}$/.test(blockSize);
  const startOk = startMs === "" || /^\d{1,16}$/.test(startMs);
  const format: Format =
    kind === "dynamo"
      ? { kind }
      : { kind, blockSize: Number(blockSize), start: startMs === "" ? null : Number(startMs) };
  const busy = files.some((f) => f.state === "uploading" || f.state === "waiting");

  const start = async () => {
    const picked = [...(input.current?.files ?? [])];
    if (picked.length === 0) return;
    setFiles(picked.map((f) => ({ name: f.name, size: f.size, state: "waiting" })));
    const set = (i: number, next: FileState) => setFiles((all) => all.map((f, j) => (j === i ? next : f)));
    for (const [i, file] of picked.entries()) {
      set(i, { name: file.name, size: file.size, state: "uploading", sent: 0 });
      try {
        const summary = await uploadTrace(file, format, (sent) =>
          set(i, { name: file.name, size: file.size, state: "uploading", sent }),
        );
        set(i, { name: file.name, size: file.size, state: "done", summary });
      } catch (err) {
        set(i, { name: file.name, size: file.size, state: "failed", error: (err as Error).message });
      }
    }
    if (input.current) input.current.value = "";
  };

  return (
    <section className="card trace-upload" aria-labelledby={`${inputId}-title`}>
      <h2 id={`${inputId}-title`}>Import trace files</h2>
      <p className="sub">
        Dynamo agent traces (dynamo.agent.trace.v1) and forward-pass traces (dynamo.fpm.trace.v1), as .jsonl or
        .jsonl.gz, or Mooncake-format request traces (timestamp, input_length, output_length, hash_ids), imported as
        recorded requests to preview policies on. Importing a file twice changes nothing.
      </p>
      <form
        className="trace-upload-form"
        onSubmit={(e) => {
          e.preventDefault();
          void start();
        }}
      >
        <label htmlFor={`${inputId}-format`}>Format</label>
        <select
          id={`${inputId}-format`}
          value={kind}
          onChange={(e) => setKind(e.target.value as "dynamo" | "mooncake")}
          disabled={busy}
        >
          <option value="dynamo">Dynamo agent / forward-pass trace</option>
          <option value="mooncake">Mooncake trace</option>
        </select>
        {kind === "mooncake" && (
          <>
            <label htmlFor={`${inputId}-block-size`}>Tokens per hash id</label>
            <input
              id={`${inputId}-block-size`}
              inputMode="numeric"
              value={blockSize}
              onChange={(e) => setBlockSize(e.target.value.trim())}
              aria-invalid={!blockSizeOk}
              disabled={busy}
            />
            <label htmlFor={`${inputId}-start`}>Start (Unix ms, empty: so it ends a minute ago)</label>
            <input
              id={`${inputId}-start`}
              inputMode="numeric"
              value={startMs}
              onChange={(e) => setStartMs(e.target.value.trim())}
              aria-invalid={!startOk}
              disabled={busy}
            />
          </>
        )}
        <label htmlFor={inputId}>Trace files</label>
        <input
          id={inputId}
          ref={input}
          type="file"
          multiple
          accept=".jsonl,.gz,.jsonl.gz,application/gzip,application/x-ndjson"
          disabled={busy}
        />
        <button className="button" type="submit" disabled={busy || (kind === "mooncake" && !(blockSizeOk && startOk))}>
          {busy ? "Importing…" : "Import"}
        </button>
      </form>
      {files.length > 0 && (
        <ul className="trace-upload-files" aria-label="Trace imports">
          {files.map((f, i) => (
            <li key={`${f.name}-${i}`} aria-label={f.name}>
              <div className="trace-upload-name">
                <strong>{f.name}</strong> <span className="sub">{formatBytes(f.size)}</span>
              </div>
              {(f.state === "waiting" || f.state === "uploading") && (
                <div className="trace-upload-progress">
                  <progress
                    aria-label={`Upload of ${f.name}`}
                    max={f.size || 1}
                    value={f.state === "uploading" ? f.sent : 0}
                  />
                  <span className="sub" role="status">
                    {f.state === "waiting"
                      ? "Waiting"
                      : f.sent >= f.size
                        ? "Importing…"
                        : `${Math.floor((f.sent / (f.size || 1)) * 100)}% sent`}
                  </span>
                </div>
              )}
              {f.state === "failed" && (
                <p className="trace-upload-error" role="alert">
                  {f.error}
                </p>
              )}
              {f.state === "done" && <ImportResult summary={f.summary} />}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function ImportResult({ summary: s }: { summary: ImportSummary }) {
  const failed = Boolean(s.fatal) || (s.records > 0 && s.accepted + s.duplicate === 0);
  return (
    <div className="trace-upload-result" role="status" data-failed={failed}>
      <p>
        {failed ? "Import incomplete" : "Imported"}: {formatCount(s.records)} records, {formatCount(s.accepted)}{" "}
        accepted
        {s.duplicate > 0 && `, ${formatCount(s.duplicate)} already imported`}, {formatCount(s.rejected)} rejected,{" "}
        {formatCount(s.badLines)} bad lines
        {s.gaps > 0 && `, ${s.gaps} forward-pass counter gaps`}
      </p>
      {s.fatal && <p className="trace-upload-error">{s.fatal}</p>}
      {s.errors.length > 0 && (
        <details>
          <summary>{s.errors.length === 1 ? "Show the problem" : `Show the first ${s.errors.length} problems`}</summary>
          <ul>
            {s.errors.map((e, i) => (
              <li key={i}>
                {e.line > 0 ? `Line ${e.line}` : "End of file"}: {e.message}
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
