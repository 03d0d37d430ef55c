"""Which files a prediction reads and writes: the names of this module before its split, importable from here.

Until the hundred-and-thirteenth session this module held two ideas in 1070 lines; each lives in a module of its
own now, and the package imports from those:

- ``inference_inputs``: the cases in predict's inputs (``collect_cases``, ``expand_inputs``, ``group_cases``, the
  channel naming, ``channels_config``, ``home_expanded``) and the refusals of what is no scan;
- ``inference_outputs``: where the outputs go and which may be written or replaced (``output_paths``,
  ``check_outputs``, ``checked_outputs``, ``done_as_written``, ``remove_earlier_prediction``,
  ``holding_output_folder``, ...);
- ``predict_marks``: the mark predict leaves in the headers it writes, read back (``written_by_predict``,
  ``case_key``, ``made_by``, ``marked_by_predict``, ...);
- ``predict_names``: a refusal's words for predict's arguments, the caller's (``PredictNames``, ...).

Scripts, notebooks and docs that import this module's names from ``accelerated_seg.inference_files`` keep working,
and ``from accelerated_seg.inference_files import *`` gives them (``__all__``), not what the module imported for
its code (numpy, nibabel, ``nifti_stem``, ...). A name patched here is not the one the code calls: patch it where
the calling code looks it up, its own module's globals (``inference_inputs._volumes_in_header`` for ``group_cases``,
``inference_outputs.no_file_made_in``, ``inference_outputs.written_by_predict`` for ``check_outputs``), or
``predict_marks.marked_by_predict``, which evaluate imports from there as it calls it.
"""

from .inference_inputs import (
    InputCase,
    channel_order,
    channels_config,
    check_channel_count,
    check_no_folder_as_a_channel,
    check_paths_given,
    collect_cases,
    expand_inputs,
    group_cases,
    home_expanded,
)
from .inference_outputs import (
    check_one_case_call,
    check_one_case_output,
    check_outputs,
    check_probabilities_output,
    checked_outputs,
    clear_stale_temporaries,
    done_as_written,
    holding_output_folder,
    output_paths,
    prediction_ending,
    probabilities_path,
    refuse_the_folder_of_the_scans,
    remove_earlier_prediction,
    remove_under_the_other_ending,
    under_the_other_ending,
)
from .predict_marks import (
    PREDICTION_DESCRIP,
    case_key,
    label_map_descrip,
    label_map_digest,
    made_by,
    marked_by_predict,
    prediction_key,
    written_before,
    written_by_predict,
)
from .predict_names import (
    ESTIMATOR_PREDICT_NAMES,
    PREDICT_CASE_NAMES,
    PREDICT_CASES_NAMES,
    PREDICT_FILE_NAMES,
    PredictNames,
)

# This module's names before the split (every one it defined without a leading "_"), by the module that holds each now
__all__ = [
    "InputCase", "channel_order", "channels_config", "check_channel_count", "check_no_folder_as_a_channel",
    "check_paths_given", "collect_cases", "expand_inputs", "group_cases", "home_expanded",
    "check_one_case_call", "check_one_case_output", "check_outputs", "check_probabilities_output", "checked_outputs",
    "clear_stale_temporaries", "done_as_written", "holding_output_folder", "output_paths", "prediction_ending",
    "probabilities_path", "refuse_the_folder_of_the_scans", "remove_earlier_prediction",
    "remove_under_the_other_ending", "under_the_other_ending",
    "PREDICTION_DESCRIP", "case_key", "label_map_descrip", "label_map_digest", "made_by", "marked_by_predict",
    "prediction_key", "written_before", "written_by_predict",
    "ESTIMATOR_PREDICT_NAMES", "PREDICT_CASE_NAMES", "PREDICT_CASES_NAMES", "PREDICT_FILE_NAMES", "PredictNames",
]
