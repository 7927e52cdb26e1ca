"""Split attention over a shared prefix (pfc.run.backends.hf_attention) against attention over the
concatenated keys, computed independently in float64 with an explicit softmax."""
import pytest

pytestmark = pytest.mark.model  # needs torch (requirements-models.txt)


def _reference(query, key, value, prefix_key, prefix_value, ok, scale):
    """Plain attention of each row over [prefix; its own keys], GQA by repeating KV heads (float64)."""
    import torch
    b, hq, q, d = query.shape
    g = hq // key.shape[1]
    k = torch.cat([prefix_key.expand(b, -1, -1, -1), key], 2).repeat_interleave(g, 1).double()
    v = torch.cat([prefix_value.expand(b, -1, -1, -1), value], 2).repeat_interleave(g, 1).double()
    seen = torch.cat([torch.ones(b, 1, q, prefix_key.shape[2], dtype=torch.bool), ok], -1)
    s = (query.double() @ k.transpose(-1, -2)) * scale
    w = torch.softmax(s.masked_fill(~seen, float("-inf")), -1)
    return (w @ v).transpose(1, 2)  # [b, q, hq, d]


def test_split_attention_equals_attention_over_the_concatenated_keys():
    import torch
    from pfc.run.backends.hf_attention import split_attention, suffix_mask
    torch.manual_seed(0)
    b, hq, hk, d, p = 3, 6, 2, 16, 40
    lens = [5, 2, 4]  # right-padded suffixes: rows see their own real tokens only
    q = torch.randn(b, hq, 5, d)
    k, v = torch.randn(b, hk, 5, d), torch.randn(b, hk, 5, d)
    pk, pv = torch.randn(1, hk, p, d), torch.randn(1, hk, p, d)
    mask = suffix_mask(lens, 0, 5, torch.float32)
    got = split_attention(q, k, v, pk, pv, mask, 0.25)
    want = _reference(q, k, v, pk, pv, mask == 0, 0.25)
    assert got.shape == (b, 5, hq, d)
    assert torch.allclose(got.double(), want, atol=1e-5)


def test_split_attention_of_one_decoded_token_per_row_reads_the_prefix_and_its_own_keys():
    import torch
    from pfc.run.backends.hf_attention import additive, split_attention
    torch.manual_seed(1)
    b, hq, hk, d, p, s = 4, 14, 2, 8, 30, 9
    q = torch.randn(b, hq, 1, d)
    k, v = torch.randn(b, hk, s, d), torch.randn(b, hk, s, d)
    pk, pv = torch.randn(1, hk, p, d), torch.randn(1, hk, p, d)
    ok = torch.rand(b, s) > 0.4
    ok[:, -1] = True  # the token being decoded sees itself
    got = split_attention(q, k, v, pk, pv, additive(ok, torch.float32)[:, None, None], 0.3)
    want = _reference(q, k, v, pk, pv, ok[:, None, None, :], 0.3)
    assert torch.allclose(got.double(), want, atol=1e-5)


def test_a_padding_position_never_contributes():
    import torch
    from pfc.run.backends.hf_attention import split_attention, suffix_mask
    torch.manual_seed(2)
    q = torch.randn(1, 2, 3, 4)
    k, v = torch.randn(1, 1, 3, 4), torch.randn(1, 1, 3, 4)
    pk, pv = torch.randn(1, 1, 5, 4), torch.randn(1, 1, 5, 4)
    mask = suffix_mask([2], 0, 3, torch.float32)  # position 2 is padding
    a = split_attention(q, k, v, pk, pv, mask, 0.5)
    k2, v2 = k.clone(), v.clone()
    k2[:, :, 2], v2[:, :, 2] = 100.0, -100.0
    b = split_attention(q, k2, v2, pk, pv, mask, 0.5)
    assert torch.allclose(a[:, :2], b[:, :2])  # the real positions' outputs ignore what the padding holds
