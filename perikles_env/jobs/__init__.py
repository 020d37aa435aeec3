"""The plumbing of every long job (the trainers and the evaluator): run folders and their
``status.json``, stopping on Ctrl-C / SIGTERM, step and time budgets with their progress bar,
finding config files and the config base schema. It knows no trainer and no evaluator, so
both can stand on it without importing each other.
"""
