"""Answers brought in from elsewhere (the task setting ``answers_from``): the sources of saved
answers, one module each behind one interface (:class:`~uta_tasks.saved_answers.source.Source`),
each registered once (:mod:`uta_tasks.saved_answers.registry`).

A source says where its files are, gives its documents, prompts, answers and generation settings
as the probe's :class:`~uta_tasks.schema.probe.SavedAnswer`, and says what it does not record
(stated with ``answers_from_settings``, never guessed). The probe's use of a saved answer in pass 1
is the probe's (:mod:`uta_tasks.probe.saved`); this package only reads. It imports the schema, the
generic readers of :mod:`uta_tasks.runs` (JSON files, lm-eval's file names, logged records) and the
harness libraries it wraps (huggingface_hub, inspect_ai, pyarrow); never the probe, the judge or
the commands (``.importlinter``: saved-answers).
"""
