"""The training room: chat-format SFT records built from the evaluation prompts (``sft``) and supervised LoRA
fine-tuning with crash-safe checkpoints and a per-step log (``lora``). It sits above the run stage, whose prompts it
trains on, and below the reports and the reference-run plans that call it; it evaluates nothing."""
