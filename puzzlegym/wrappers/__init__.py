"""Gymnasium wrappers for puzzlegym envs, each doing one job.

* :class:`BlackBox` drops the private ``info["evaluator"]`` section, so an agent sees pixels
  and the public info keys only.
* :class:`TextChannel` adds a text observation (instruction, feedback line, intervention
  text) next to the untouched screen.
* :class:`LowResObservation` has the renderer composite observations directly at a training
  resolution (84×84, 1/4, 1/8 ..., optionally grayscale): no full frame, no resize.
* :class:`DownscaleObservation` shrinks each full screen with Pillow (any env, the browser
  backend included), optionally to grayscale.
* :class:`BoardObservation` observes the symbolic board instead: the game's public board
  state as ``uint8`` 0/1 planes ``(C, H, W)``, no frame painted at any step (privileged, for
  training; ``MlpPolicy``).
* :class:`NumpyInfo` gives the public info numbers as numpy scalars (TorchRL reads them with
  :func:`torchrl_info_reader`).
* :class:`DiscreteGUIActions` replaces the GUI action dicts by a ``Discrete(n)`` space of
  clicks and swipes on a grid over the screen plus the arrow keys.
* :class:`BoardActions` replaces them by the level's board-aligned targets (cells, bolts,
  anchors, vehicles, ...) plus the suite's buttons, with ``action_masks()`` for
  sb3-contrib's ``MaskablePPO`` (privileged layout knowledge, for training).
* :class:`ActionMaskObservation` puts those masks in a ``Dict`` observation
  (``{"action_mask", "observations"}``), the form RLlib's masked models read.
* :func:`make_sb3_env` stacks LowResObservation (or, with ``observation="board"``,
  BoardObservation) → BlackBox → NumpyInfo → DiscreteGUIActions or BoardActions into an env
  that Stable-Baselines3's ``CnnPolicy`` (``MlpPolicy`` for the board) accepts;
  :func:`check_sb3_env` explains what a raw env lacks.
* :func:`make_torchrl_env` wraps that stack for TorchRL (``GymWrapper`` with the info numbers
  and, for the board actions, the action masks and TorchRL's ``ActionMask``);
  :func:`register_torchrl_spaces` gives TorchRL a spec for the raw env's GUI action dicts,
  so ``torchrl.envs.GymEnv`` takes a raw id.

Interventions of the diagnostic studies (paper Section 5), over a :class:`TextChannel`; none
of them touches the game's pixels:

* :class:`StateHint` (RQ2 A/B/C): a truthful sentence about the board at takeover;
* :class:`RuleCard` (RQ4 K0/K1): the game's rule card in the text channel;
* :class:`WorkflowController` (RQ4 P0/P1): game entry and level advancement by a
  deterministic controller, so the agent makes only puzzle moves;
* :class:`DeadEndRestart`: restarts the level right after a certified dead end.

Typical use::

    env = make_sb3_env(
        "LongPuzzle/MazePaint-Easy", actions="board", start="board", level=1, budget_s=200
    )
    model = stable_baselines3.PPO("CnnPolicy", env)

    env = make_sb3_env(
        "LongPuzzle/MazePaint-Easy", observation="board", actions="board", start="board"
    )
    model = stable_baselines3.PPO("MlpPolicy", env)
"""

from puzzlegym.wrappers.action import ARROW_KEYS, SWIPE_PX, SWIPES, DiscreteGUIActions
from puzzlegym.wrappers.action_mask import ActionMaskObservation
from puzzlegym.wrappers.blackbox import PRIVATE_INFO_KEYS, BlackBox
from puzzlegym.wrappers.board_actions import BUTTONS, BoardActions
from puzzlegym.wrappers.board_observation import BoardObservation
from puzzlegym.wrappers.hints import HINT_CONDITIONS, HINT_MESSAGES, StateHint
from puzzlegym.wrappers.info import NUMERIC_INFO_KEYS, NumpyInfo, torchrl_info_reader
from puzzlegym.wrappers.lowres import LowResObservation, resolution_for
from puzzlegym.wrappers.observation import DownscaleObservation
from puzzlegym.wrappers.restart import DeadEndRestart
from puzzlegym.wrappers.rulecard import RULE_CARD_CONDITIONS, RuleCard
from puzzlegym.wrappers.sb3 import (
    MAX_CNN_PARAMETERS,
    POLICIES,
    check_sb3_env,
    make_sb3_env,
    nature_cnn_parameters,
)
from puzzlegym.wrappers.text import TEXT_CHARSET, TEXT_MAX_LENGTH, TextChannel, find_text_channel
from puzzlegym.wrappers.torchrl import (
    TORCHRL_DEFAULT_ACTION,
    make_torchrl_env,
    register_torchrl_spaces,
)
from puzzlegym.wrappers.workflow import WORKFLOW_CONDITIONS, WorkflowController

__all__ = [
    "ARROW_KEYS",
    "BUTTONS",
    "HINT_CONDITIONS",
    "HINT_MESSAGES",
    "MAX_CNN_PARAMETERS",
    "NUMERIC_INFO_KEYS",
    "POLICIES",
    "PRIVATE_INFO_KEYS",
    "RULE_CARD_CONDITIONS",
    "SWIPES",
    "SWIPE_PX",
    "TEXT_CHARSET",
    "TEXT_MAX_LENGTH",
    "TORCHRL_DEFAULT_ACTION",
    "WORKFLOW_CONDITIONS",
    "ActionMaskObservation",
    "BlackBox",
    "BoardActions",
    "BoardObservation",
    "DeadEndRestart",
    "DiscreteGUIActions",
    "DownscaleObservation",
    "LowResObservation",
    "NumpyInfo",
    "RuleCard",
    "StateHint",
    "TextChannel",
    "WorkflowController",
    "check_sb3_env",
    "find_text_channel",
    "make_sb3_env",
    "make_torchrl_env",
    "nature_cnn_parameters",
    "register_torchrl_spaces",
    "resolution_for",
    "torchrl_info_reader",
]
