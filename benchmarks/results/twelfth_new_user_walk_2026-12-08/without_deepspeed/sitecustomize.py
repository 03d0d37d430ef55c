# On PYTHONPATH, a user's environment without DeepSpeed (walk_5): `import deepspeed` fails and
# importlib.util.find_spec("deepspeed"), which accelerate's is_deepspeed_available() asks, returns None.
import sys

sys.modules["deepspeed"] = None
