"""``pfc export --inspect RUN…``: each ``pfc run`` directory as one inspect_ai ``.eval`` log, for ``inspect view``.

A sample per answered example: its input is the chat the runner sent (``pfc.integrations.run_export``), its output the
raw answer of ``predictions.jsonl`` (text, or an assistant message with its tool calls), its one score ``pfc`` the
scorer's per-example columns (``overall``, ``format``, ... as ``pfc score`` computes them), its metadata the user,
groups, error type, value provenance, gold call, candidate tool specs and the prediction row. The header carries the
run's settings (task args), its identity (``run.json``) and ``config.json`` in the eval metadata, and the benchmark's
headline metrics. Built with inspect_ai's public log API (``inspect_ai.log``); it translates, it never re-scores or
re-runs anything. Only ``pfc export`` imports it.
"""
from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

from inspect_ai.log import (EvalConfig, EvalDataset, EvalLog, EvalMetric, EvalResults, EvalSample, EvalScore,
                            EvalSpec, EvalStats, write_eval_log)
from inspect_ai.model import (ChatCompletionChoice, ChatMessageAssistant, ChatMessageSystem, ChatMessageTool,
                              ChatMessageUser, GenerateConfig, ModelOutput)
from inspect_ai.scorer import Score
from inspect_ai.tool import ToolCall

from pfc import paths
from pfc.integrations.run_export import read_run
from pfc.io import atomic

ROLES = {"system": ChatMessageSystem, "user": ChatMessageUser, "tool": ChatMessageTool}


def _call(c: dict, i: int) -> ToolCall:
    """An OpenAI-style tool call; arguments that are not a JSON object are kept as the parse error."""
    fn, args, error = c.get("function") or {}, (c.get("function") or {}).get("arguments"), None
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            args, error = {}, f"not JSON: {args[:200]}"
    if not isinstance(args, dict):
        args, error = {}, error or f"not a JSON object: {json.dumps(args)[:200]}"
    return ToolCall(id=str(c.get("id") or f"call_{i}"), function=str(fn.get("name")), arguments=args,
                    parse_error=error)


def message(m) -> ChatMessageAssistant | ChatMessageSystem | ChatMessageUser | ChatMessageTool:
    """One chat message (a dict, or a raw answer: text, None or an assistant message) as inspect's."""
    m = m if isinstance(m, dict) else {"role": "assistant", "content": m}
    content = m.get("content") or ""
    if m.get("role", "assistant") == "assistant":
        calls = [_call(c, i) for i, c in enumerate(m.get("tool_calls") or [])]
        return ChatMessageAssistant(content=content, tool_calls=calls or None)
    extra = {"tool_call_id": m.get("tool_call_id")} if m["role"] == "tool" else {}
    return ROLES[m["role"]](content=content, **extra)


def sample(s: dict, model: str) -> EvalSample:
    """One example: the request's messages, then the raw answer; the scorer's columns as its ``pfc`` score."""
    raw, labels = s["row"].get("output"), s["labels"]
    msgs, answer = [message(m) for m in s["messages"]], message(raw)
    return EvalSample(
        id=s["id"], epoch=1, input=msgs, target=json.dumps(s["gold"], ensure_ascii=False), messages=msgs + [answer],
        output=ModelOutput(model=model, choices=[ChatCompletionChoice(message=answer, stop_reason="stop")]),
        scores={"pfc": Score(value=s["scores"], answer=raw if isinstance(raw, str) else json.dumps(raw),
                             explanation=labels.get("error_type") or "correct", metadata=labels)},
        metadata={"user": s["user"], **labels, "value_provenance": s["provenance"], "gold": s["gold"],
                  "example_meta": s["meta"], "tools": s["tools"], "prediction_row": s["row"]})


def to_log(run: dict) -> EvalLog:
    """One run's dicts (:func:`pfc.integrations.run_export.read_run`) as a finished eval log."""
    config, samples = run["config"], run["samples"]
    model = f"{config.get('backend')}/{config.get('model')}"
    stamp = hashlib.sha256(json.dumps([run["run"], run["run_json"]], sort_keys=True).encode()).hexdigest()[:22]
    sampling = {k: v for k, v in (config.get("sampling") or {}).items() if k in GenerateConfig.model_fields}
    spec = EvalSpec(
        eval_id=stamp, run_id=stamp, created=run["created"], task=f"pfc/{config['benchmark']}", model=model,
        task_args={k: config.get(k) for k in ("strategy", "history", "k", "layout", "prompt_variant", "native_tools")},
        dataset=EvalDataset(name=config["benchmark"], location=str(config.get("examples")), samples=run["planned"],
                            sample_ids=[s["id"] for s in samples]),
        model_generate_config=GenerateConfig(**sampling), config=EvalConfig(),
        packages={"pfc": str((config.get("versions") or {}).get("pfc"))},
        metadata={"pfc_run": run["run"], "run": run["run_json"], "config": config})
    ordered = sorted(run["metrics"].items(), key=lambda kv: kv[0] != "overall")  # the viewer's headline: first
    metrics = {k: EvalMetric(name=k, value=v) for k, v in ordered}
    results = EvalResults(total_samples=run["planned"], completed_samples=len(samples),
                          scores=[EvalScore(name="pfc", scorer="pfc", scored_samples=len(samples), metrics=metrics)])
    return EvalLog(status="success", eval=spec, results=results, samples=[sample(s, model) for s in samples],
                   stats=EvalStats(started_at=run["created"], completed_at=run["created"]))


def log_name(run_dir) -> str:
    """The log's file name, from the run's path (``reports/reference_runs/tracebench-last_k`` ->
    ``reports_reference_runs_tracebench-last_k.eval``)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", paths.relative(Path(run_dir))).strip("._") + ".eval"


def export(runs, out=None) -> list[Path]:
    """Write one ``.eval`` log per run directory into ``out`` (default ``reports/inspect_logs``), each whole or
    not at all; progress on stderr. A directory that is not a run, or whose examples are not built, is refused
    (``pfc.errors.UserError``) before its log is written."""
    out = Path(out) if out else paths.REPORTS / "inspect_logs"
    written = []
    for i, run_dir in enumerate(runs, 1):
        print(f"pfc export: [{i}/{len(runs)}] {paths.relative(Path(run_dir))}", file=sys.stderr, flush=True)
        run = read_run(run_dir)
        log = to_log(run)
        out.mkdir(parents=True, exist_ok=True)
        with atomic.staged(out / log_name(run_dir)) as tmp:
            write_eval_log(log, str(tmp), format="eval")
        written.append(out / log_name(run_dir))
        print(f"pfc export: wrote {paths.relative(written[-1])} ({len(run['samples'])} samples)", file=sys.stderr)
    return written
