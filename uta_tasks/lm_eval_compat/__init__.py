"""Every use of lm-eval internals, in one place (this package). Works on lm-eval 0.4.13 and 0.5.

The rest of the package imports lm-eval only through this module (``tests/test_structure.py``
checks it). Each function names the internal it relies on and what differs between the
two versions:

==============================  =======================================  ==========================================
concern                         0.4.13                                   0.5 (``0.5.0.dev1``)
==============================  =======================================  ==========================================
task base class                 ``lm_eval.api.task.ConfigurableTask``    ``lm_eval.api.task.GenerateTask`` (scorers)
``Instance``                    ``Instance(type, doc, args, idx,         ``task_name`` required, ``doc_id``
                                metadata=(task, doc_id, repeats))``      keyword-only
keep every repeat's response    set ``task._filters`` after ``__init__`` ``filter_list`` in the config
declared metrics                ``aggregation()`` / ``higher_is_better()`` ``metric_list`` in the config (the methods
                                methods                                  are ignored)
``process_results(doc, r)``     ``r = [responses of the doc]``           ``r = responses of the doc`` (flat)
request method on models        ``setattr(LM, name, fn)``                same
request cache key               ``lm_eval.api.model.hash_args``          same
YAML loader                     ``lm_eval.tasks._yaml_loader.load_yaml`` same
``exact_match``                 ``api.metrics.exact_match_hf_evaluate``  ``api.metrics.generation.exact_match_fn``
``apply_template``              ``lm_eval.utils.apply_template``         ``lm_eval.config.templates.apply_template``
task discovery                  ``TaskManager(include_path=...)``        same; ``lm_eval.tasks`` entry points where
                                                                         the installed lm-eval reads them
==============================  =======================================  ==========================================
"""

from __future__ import annotations

from .aggregation import native_aggregation, stderr
from .command import cli_main, parse_args_string
from .discovery import add_include_path, reads_task_entry_points, task_manager_class
from .evaluation import check_before_model, requests_without_model
from .logs import explain_chat_template_warning, shown_beside_lm_eval, tasks_from_argv
from .models import (
    SAMPLING_KEYS,
    VLLM_DECODING,
    backend_instance,
    chat_template_args,
    install_request_method,
    is_local_completions,
    max_length,
    model_chat_template_args,
    request_cache,
    request_cache_key,
    sampling_defaults,
    think_end_token,
    vllm_engine_args,
)
from .scoring import apply_filters, apply_template, exact_match
from .task_class import (
    after_init,
    after_override_metric,
    doc_responses,
    keep_all,
    make_instance,
    prepare_config,
    task_base_class,
)
from .task_files import builtin_task_dir, builtin_task_module, load_task_yaml
from .version import ENTRY_POINT_GROUP, FILTER_NAME, IS_05, LM_EVAL_VERSION

__all__ = [
    "ENTRY_POINT_GROUP",
    "FILTER_NAME",
    "IS_05",
    "LM_EVAL_VERSION",
    "SAMPLING_KEYS",
    "VLLM_DECODING",
    "add_include_path",
    "after_init",
    "after_override_metric",
    "apply_filters",
    "apply_template",
    "backend_instance",
    "builtin_task_dir",
    "builtin_task_module",
    "chat_template_args",
    "check_before_model",
    "cli_main",
    "doc_responses",
    "exact_match",
    "explain_chat_template_warning",
    "shown_beside_lm_eval",
    "install_request_method",
    "is_local_completions",
    "keep_all",
    "load_task_yaml",
    "make_instance",
    "max_length",
    "model_chat_template_args",
    "native_aggregation",
    "parse_args_string",
    "prepare_config",
    "reads_task_entry_points",
    "request_cache",
    "request_cache_key",
    "requests_without_model",
    "sampling_defaults",
    "stderr",
    "task_base_class",
    "task_manager_class",
    "tasks_from_argv",
    "think_end_token",
    "vllm_engine_args",
]
