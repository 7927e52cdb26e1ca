"""Stage 4, reports: tables, figures and the papers' results beside ours."""
