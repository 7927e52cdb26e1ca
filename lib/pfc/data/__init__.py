"""Stage 1, data: toolsets, simulated logs, preprocessing, anchors, query generation, benchmark builds."""
