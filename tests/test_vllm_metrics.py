"""Reading vLLM's prefix-cache counters from Prometheus text (benchmarks/vllm_server.py); no vLLM needed."""
from vllm_server import parse_metrics, prefix_cache_stats

# Shape of vLLM V1's /metrics (hand-written; the counters count tokens, one sample per engine label set)
V1 = """# HELP vllm:prefix_cache_queries_total Prefix cache queries, in terms of number of queried tokens.
# TYPE vllm:prefix_cache_queries_total counter
vllm:prefix_cache_queries_total{engine="0",model_name="qwen"} 3000.0
vllm:prefix_cache_hits_total{engine="0",model_name="qwen"} 2250.0
vllm:num_requests_running{engine="0",model_name="qwen"} 0.0
"""


def test_hit_rate_is_hits_over_queries():
    # hand computation: 2250 / 3000 = 0.75
    assert prefix_cache_stats(parse_metrics(V1)) == {"queries": 3000.0, "hits": 2250.0, "hit_rate": 0.75}


def test_label_sets_of_one_metric_are_summed():
    text = V1 + 'vllm:prefix_cache_queries_total{engine="1",model_name="qwen"} 1000.0\n' \
                'vllm:prefix_cache_hits_total{engine="1",model_name="qwen"} 750.0\n'
    assert prefix_cache_stats(parse_metrics(text))["hit_rate"] == 0.75  # (2250+750)/(3000+1000)


def test_older_gauge_is_read_when_no_counters_exist():
    assert prefix_cache_stats(parse_metrics('vllm:gpu_prefix_cache_hit_rate{model_name="m"} 0.5\n')) == \
        {"queries": None, "hits": None, "hit_rate": 0.5}


def test_no_prefix_cache_metric_is_none_and_garbage_never_raises():
    # trap: a server without prefix caching must not report a hit rate of 0 as if measured
    assert prefix_cache_stats(parse_metrics("garbage {{{\nfoo 1 2 3\n# only comments\n")) is None
    assert prefix_cache_stats(parse_metrics("vllm:prefix_cache_queries_total 0\nvllm:prefix_cache_hits_total 0\n")) \
        == {"queries": 0.0, "hits": 0.0, "hit_rate": 0.0}
