"""How a refusal names predict's arguments: the command's flags, or a Python function's parameters.

Each check of what a prediction reads (``inference_inputs``) and writes (``inference_outputs``) says its refusal
in its caller's words: ``PredictNames()`` are ``accelerated-seg predict``'s (``--output``, ``--input``), and each
Python entry point has its own (``PREDICT_FILE_NAMES``, ``PREDICT_CASES_NAMES``, ...), passed down as ``names``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .shell_words import shell_word


@dataclass(frozen=True)
class PredictNames:
    """How the caller names predict's arguments in a refusal: the command's flags (the default), or a Python
    function's parameters (``PREDICT_FILE_NAMES``, ...). One check, each caller's words: until the ninety-fifth
    session a call from Python was told to give ``--output`` another name, or a folder to ``accelerated-seg
    predict``, and ``predict_file(model, scan, "p2d/")`` only that "p2d" was no NIfTI name."""

    output: str = "--output"  # the label map's path (one case), or the folder of the cases' label maps
    probabilities: str = "--output"  # where the probabilities' path comes from: --output's, beside the label map
    without_probabilities: str = "leave out --probabilities"  # how the caller writes no probabilities
    inputs: str = "--input"  # one case's files, one per channel
    model: str = "--model"  # the exported model's folder, or several (an ensemble)
    keyword: bool = False  # a keyword says its value as output='p2d/', a flag as --output p2d/
    # the form that segments one case, then the one that segments several into a folder ({folder}: the output, as
    # several_cases_into writes it)
    one_case: str = "with --input (one case, one file per channel) the output is that case's label map, one file"
    several_cases: str = "give the files as INPUT... (without --input) with --output {folder}"

    def given(self, value, name: str | None = None) -> str:
        """``value`` as given to the argument ``name`` (``output`` by default): --output p2d/, output='p2d/' (a path
        quoted for a shell on the command line, as a command said to run is pasted as it is)."""
        name = name or self.output
        return f"{name}={str(value)!r}" if self.keyword else f"{name} {shell_word(value)}"

    def several_cases_into(self, folder=None) -> str:
        """``several_cases`` into ``folder`` (None: the placeholder ``<folder>``): quoted for a shell on the command
        line, as Python's string (repr) in a call. The calls' forms put the folder inside quotes of their own until
        review r91, so a folder named ``it's out`` gave ``'it's out'`` and ``C:\\new`` a newline."""
        if folder is None:
            return self.several_cases.format(folder="'<folder>'" if self.keyword else "<folder>")
        return self.several_cases.format(folder=repr(str(folder)) if self.keyword else shell_word(folder))


#: predict_file's words (inference.py).
PREDICT_FILE_NAMES = PredictNames(
    model="model_dir", output="output", probabilities="probabilities_output", inputs="inputs", keyword=True,
    without_probabilities="leave out probabilities_output",
    one_case="predict_file segments one case (inputs: one file per channel), so output is that case's label map, "
             "one file",
    several_cases="call predict_cases(model_dir, inputs, {folder})")
#: Segmentation.predict's (estimator.py), whose scans are its x, and whose output is a temporary file of its own.
ESTIMATOR_PREDICT_NAMES = PredictNames(
    model="model_dir", output="output", probabilities="probabilities_output", inputs="x", keyword=True,
    without_probabilities="leave out probabilities_output",
    one_case="Segmentation.predict segments one case (x: one file per channel)",
    several_cases="call predict once per case, or for files accelerated_seg.inference.predict_cases(model.model_dir, "
                  "x, {folder})")
#: predict_cases' words: its output is the folder (or one case's file), its inputs files, folders or patterns.
PREDICT_CASES_NAMES = PredictNames(model="model_dir", output="output", probabilities="output", inputs="inputs",
                                   keyword=True, without_probabilities="give probabilities=False")
#: predict_case's and prepare_case's (inference.py), whose one case's files are its channels.
PREDICT_CASE_NAMES = PredictNames(model="model_dir", output="output", probabilities="probabilities_output",
                                  inputs="channels", keyword=True,
                                  without_probabilities="leave out probabilities_output",
                                  several_cases="call predict_cases(model_dir, channels, {folder})")
