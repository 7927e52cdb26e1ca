"""The inspect_ai tasks (``pip install -e .[inspect]``, installed by ``make test``) score a model's answers exactly as
``pfc score`` does: inspect's ``mockllm`` model answers each prompt with a built-in baseline's output from ``pfc run``
(TRACEBench: as a native tool call, the inspect way), and the task's ``pfc`` metrics equal ``pfc score``'s numbers."""
import json
import math
import subprocess
import sys

import pytest

pytest.importorskip("inspect_ai", reason="the inspect extra (make venv-inspect; make test installs it)")
from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.model import ChatMessageAssistant, ChatMessageTool, ModelOutput, ModelUsage, get_model  # noqa: E402
from inspect_ai.tool import ToolCall  # noqa: E402

from pfc import benchmarks, paths  # noqa: E402
from pfc.eval.parsing import parse  # noqa: E402
from pfc.integrations import inspect_tasks  # noqa: E402
from pfc.run.config import RunConfig  # noqa: E402
from pfc.run.runner import execute  # noqa: E402

pytestmark = pytest.mark.slow  # several baseline runs and inspect evals

TASKS = {a.name: getattr(a.part("inspect_task"), a.name) for a in benchmarks.adapters() if a.has("inspect_task")}


def pfc_score(benchmark, examples, predictions, out) -> dict:
    p = subprocess.run([sys.executable, "-m", "pfc", "score", "--benchmark", benchmark, "--examples", str(examples),
                        "--predictions", str(predictions), "--out", str(out)], capture_output=True, text=True,
                       cwd=paths.ROOT, timeout=300)
    assert p.returncode == 0, p.stderr
    return {k: v for k, v in json.loads((out / "metrics.json").read_text()).items() if "/" not in k}


def mock_model(task, predictions, seen_tools: list):
    """mockllm answering each sample's prompt with the baseline's output for that example."""
    outputs = {json.loads(line)["id"]: json.loads(line)["output"] for line in open(predictions)}
    by_prompt = {s.input[-1].text: s.id for s in task.dataset}
    assert len(by_prompt) == len(task.dataset), "prompts identify their examples"

    def answer(messages, tools, tool_choice, config):
        out = outputs[by_prompt[messages[-1].text]]
        seen_tools.append([t.name for t in tools])
        r = parse(out, "auto") if tools else None
        if r is not None and r.ok and not r.refusal:  # the inspect way: the baseline's calls as tool calls
            calls = [ToolCall(id=f"call{i}", function=f"{c.app}__{c.function}" if c.app else c.function,
                              arguments=c.arguments) for i, c in enumerate(r.calls)]
            result = ModelOutput.from_message(ChatMessageAssistant(content="", tool_calls=calls, model="mockllm"))
        else:
            result = ModelOutput.from_content("mockllm", out)
        result.usage = ModelUsage(input_tokens=0, output_tokens=0, total_tokens=0)  # else mockllm fetches tiktoken
        return result
    return get_model("mockllm/model", custom_outputs=answer, memoize=False)


def evaluate(benchmark, examples, predictions, tmp_path, seen_tools):
    task = TASKS[benchmark](examples=str(examples))
    log = inspect_eval(task, model=mock_model(task, predictions, seen_tools), log_dir=str(tmp_path / "logs"),
                       display="none", max_samples=4)[0]
    assert log.status == "success", log.error and log.error.message
    return log, {m.name: m.value for s in log.results.scores for m in s.metrics.values()}


def same(ours: dict, theirs: dict) -> None:
    assert set(ours) == set(theirs)
    for k, v in ours.items():
        w = theirs[k]
        assert (v is None and math.isnan(w)) or v == pytest.approx(w, rel=1e-12), (k, v, w)


@pytest.fixture(scope="module")
def tracebench(tmp_path_factory):
    from pfc.data.build import build_tracebench
    root = tmp_path_factory.mktemp("inspect-tb")
    build_tracebench(root / "tb", users=2, seed=1, records=150, progress=False)
    execute(RunConfig("tracebench", root / "tb", "history-prior", root / "run", cache_path=root / "cache.sqlite", progress=False))
    return root


def test_tracebench_task_scores_the_baselines_outputs_as_pfc_score_does(tracebench, tmp_path):
    seen = []
    log, metrics = evaluate("tracebench", tracebench / "tb", tracebench / "run" / "predictions.jsonl", tmp_path, seen)
    same(pfc_score("tracebench", tracebench / "tb", tracebench / "run" / "predictions.jsonl", tmp_path / "s"), metrics)
    assert metrics["overall"] > 0.3  # a real signal, not an empty run


def test_tracebench_tools_are_offered_as_inspect_tools_and_calls_are_read_never_run(tracebench, tmp_path):
    seen = []
    log, _ = evaluate("tracebench", tracebench / "tb", tracebench / "run" / "predictions.jsonl", tmp_path, seen)
    specs = {s.id: [t["function"]["name"] for t in s.metadata["tools"]] for s in TASKS["tracebench"](
        examples=str(tracebench / "tb")).dataset}
    assert sorted(map(sorted, seen)) == sorted(map(sorted, specs.values()))  # each sample's own candidate tools
    assert all(s.output.message.tool_calls for s in log.samples)
    assert not any(isinstance(m, ChatMessageTool) for s in log.samples for m in s.messages)  # nothing executed


def test_ptbench_task_scores_the_baselines_outputs_as_pfc_score_does(tmp_path):
    from pfc.data.ptool.build import synthesize, write
    write(synthesize(seed=0, ks=(2, 2, 2), per_user=5, unseen_ks=(1, 2, 1), unseen_per_user=3, held_out=2),
          tmp_path / "pt")
    execute(RunConfig("ptbench", tmp_path / "pt", "history-prior", tmp_path / "run", cache_path=tmp_path / "c.sqlite", progress=False))
    seen = []
    _, metrics = evaluate("ptbench", tmp_path / "pt", tmp_path / "run" / "predictions.jsonl", tmp_path, seen)
    same(pfc_score("ptbench", tmp_path / "pt", tmp_path / "run" / "predictions.jsonl", tmp_path / "s"), metrics)
    assert seen and not any(seen)  # PTBench's prompt carries its tools as text: none offered natively


def test_toolspectrum_task_scores_the_baselines_outputs_as_pfc_score_does(release, tmp_path):
    from pfc.benchmarks.toolspectrum import load
    from pfc.schema import write_examples, write_tools
    examples, tools = load(release)
    write_examples(examples[::25], tmp_path / "ts" / "examples.jsonl")  # every subset, 41 examples
    write_tools(tools, tmp_path / "ts" / "tools.json")
    execute(RunConfig("toolspectrum", tmp_path / "ts", "history-prior", tmp_path / "run", cache_path=tmp_path / "c.sqlite",
        progress=False))
    seen = []
    _, metrics = evaluate("toolspectrum", tmp_path / "ts", tmp_path / "run" / "predictions.jsonl", tmp_path, seen)
    same(pfc_score("toolspectrum", tmp_path / "ts", tmp_path / "run" / "predictions.jsonl", tmp_path / "s"), metrics)


def test_hierarchical_prompting_is_refused_in_one_line(tracebench):
    from pfc.errors import UserError
    with pytest.raises(UserError, match="hierarchical.*pfc run"):
        TASKS["tracebench"](examples=str(tracebench / "tb"), strategy="hierarchical")
