"""The JAX PPO (puzzlegym.jax.ppo) on a tiny masked gymnax env: masked actions are never
taken (and the same PPO without the mask takes them), it learns, several seeds train in one
jit, a state saved between two calls continues exactly; the network, config and file checks
name what is wrong, and a policy file round-trips while hostile ones are refused."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

jax = pytest.importorskip("jax")

import jax.numpy as jnp  # noqa: E402
from flax import struct  # noqa: E402
from gymnax.environments import environment, spaces  # noqa: E402

from puzzlegym.base.errors import ConfigError  # noqa: E402
from puzzlegym.jax.policy import arrays  # noqa: E402
from puzzlegym.jax.policy.network import MASKED, NetworkSpec, masked_logits  # noqa: E402
from puzzlegym.jax.policy.policy import Policy  # noqa: E402
from puzzlegym.jax.ppo import METRICS, PPO, PPOConfig  # noqa: E402
from tests.memory import peak_memory  # noqa: E402
from tests.mutations import ODD_VALUES, key_paths, replaced  # noqa: E402

LENGTH = 5  # corridor cells
TRAP = -10.0  # the reward of the forbidden action


@struct.dataclass
class CorridorState(environment.EnvState):
    pos: jax.Array


@struct.dataclass
class CorridorParams(environment.EnvParams):
    max_steps_in_episode: int = 3 * LENGTH
    masked: bool = True  # False: the mask allows the trap (PPO's control, same compiled code)


class Corridor(environment.Environment):
    """Walk right to the last cell (+1, terminated). Actions: 0 left, 1 right, 2 a trap
    (reward TRAP, episode over) that the mask forbids (unless ``params.masked`` is False),
    as it forbids left at cell 0. Observations: (2, 1, LENGTH) planes (the agent's cell, the
    goal's)."""

    @property
    def default_params(self):
        return CorridorParams()

    def action_space(self, params=None):
        return spaces.Discrete(3)

    def observation_space(self, params=None):
        return spaces.Box(0, 1, (2, 1, LENGTH), jnp.uint8)

    def get_obs(self, state, params=None, key=None):
        cells = jnp.arange(LENGTH)
        return jnp.stack([cells == state.pos, cells == LENGTH - 1])[:, None, :].astype(jnp.uint8)

    def reset_env(self, key, params):
        state = CorridorState(time=0, pos=jnp.int32(0))
        return self.get_obs(state), state

    def step_env(self, key, state, action, params):
        pos = jnp.clip(state.pos + jnp.where(action == 1, 1, jnp.where(action == 0, -1, 0)), 0)
        pos = jnp.minimum(pos, LENGTH - 1)
        trapped = action == 2
        won = (pos == LENGTH - 1) & ~trapped
        reward = jnp.where(trapped, TRAP, jnp.where(won, 1.0, 0.0))
        state = CorridorState(time=state.time + 1, pos=pos)
        done = won | trapped | (state.time >= params.max_steps_in_episode)
        info = {"terminated": won | trapped}
        return self.get_obs(state), state, reward, done, info

    def action_mask(self, state, params):
        return jnp.stack([state.pos > 0, jnp.bool_(True), ~params.masked])


SPEC = NetworkSpec(kind="conv", channels=(4,), features=16)
CONFIG = PPOConfig(
    num_envs=8, num_steps=16, num_epochs=2, num_minibatches=2, learning_rate=0.01, network=SPEC
)
UPDATES = 12


@pytest.fixture(scope="module")
def corridor():
    env = Corridor()
    return PPO(env, env.default_params, CONFIG, chunk=UPDATES)


@pytest.fixture(scope="module")
def trained(corridor):
    """Three seeds in one jit, trained UPDATES updates; and the same from a state saved
    after 5 updates and loaded again."""
    keys = jax.random.split(jax.random.PRNGKey(0), 3)
    start = corridor.init(keys)
    end, rows = corridor.run(start, UPDATES)
    return start, end, np.asarray(rows)


def column(rows, name):
    return rows[..., METRICS.index(name)]


def test_masked_actions_are_never_taken_and_without_the_mask_they_are(corridor, trained):
    _, _, rows = trained
    # every episode of every update of every seed: the trap (the forbidden action) gives a
    # return of -10, so a mean return below 0 would mean a masked action was taken
    assert column(rows, "episodes").min() > 0
    assert column(rows, "return_mean").min() >= 0.0
    # the mask forbade a third or more of the (state, action) pairs
    assert column(rows, "masked_share").min() >= 1 / 3
    env = corridor.env  # the control: the same PPO and env, the trap allowed
    control = PPO(env, env.default_params.replace(masked=False), CONFIG, chunk=UPDATES)
    _, raw = control.run(control.init(jax.random.split(jax.random.PRNGKey(0), 3)), 2)
    assert float(column(np.asarray(raw), "return_mean").min()) < 0.0
    assert float(column(np.asarray(raw)[:, :2], "masked_share").max()) < 1 / 3


def test_it_learns_to_walk_the_corridor(trained):
    _, _, rows = trained
    first, last = rows[:, 0], rows[:, -1]
    # at first the random walk rarely reaches the end within the budget; after training
    # every seed walks there in few steps
    assert column(last, "terminated_share").min() == 1.0
    assert column(last, "length_mean").max() < column(first, "length_mean").min()
    assert column(last, "length_mean").max() <= LENGTH + 1


def test_seeds_train_apart_in_one_jit(trained):
    start, end, _ = trained
    assert end.update.tolist() == [UPDATES] * 3
    kernels = jax.tree_util.tree_leaves(end.params)[1]
    assert not np.allclose(kernels[0], kernels[1])  # different seeds, different networks


def test_a_saved_state_continues_exactly(corridor, trained, tmp_path):
    start, end, rows = trained
    half, rows1 = corridor.run(start, 5)
    arrays.save(tmp_path / "state.npz", half, {"format": "test-state"})
    _, leaves = arrays.load(tmp_path / "state.npz", "test-state")
    loaded = arrays.restore(start, leaves, "state")
    rest, rows2 = corridor.run(loaded, UPDATES - 5)
    for a, b in zip(jax.tree_util.tree_leaves(rest), jax.tree_util.tree_leaves(end), strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    joined = np.concatenate([np.asarray(rows1)[:, :5], np.asarray(rows2)[:, : UPDATES - 5]], 1)
    np.testing.assert_array_equal(joined, rows)


def test_masked_logits_never_pick_a_masked_action():
    logits = jnp.array([5.0, -3.0, 0.0, 9.0])
    mask = jnp.array([False, True, True, False])
    out = masked_logits(logits, mask)
    assert out.tolist() == [MASKED, -3.0, 0.0, MASKED]
    draws = jax.random.categorical(jax.random.PRNGKey(1), out, shape=(2000,))
    assert set(np.unique(draws).tolist()) == {1, 2}


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"num_envs": 0}, "num_envs"),
        ({"num_steps": 10**9}, "num_steps"),
        ({"num_minibatches": 3}, "num_minibatches"),  # 8 * 16 steps do not split in 3
        ({"learning_rate": float("nan")}, "learning_rate"),
        ({"gamma": 1.5}, "gamma"),
        ({"clip_eps": "0.2"}, "clip_eps"),
        ({"network": {"kind": "mlp"}}, "network"),
    ],
)
def test_ppo_config_names_the_bad_field(kwargs, field):
    with pytest.raises(ConfigError, match=f"^{field}: "):
        PPOConfig(**{"num_envs": 8, "num_steps": 16, **kwargs})


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"kind": "transformer"}, "network.kind"),
        ({"kind": "conv", "channels": ()}, "network.channels"),
        ({"kind": "mlp", "channels": (4,)}, "network.channels"),
        ({"channels": (0,)}, r"network.channels\[0\]"),
        ({"channels": "16"}, "network.channels"),
        ({"features": 10**6}, "network.features"),
        ({"hidden": [8] * 9}, "network.hidden"),
    ],
)
def test_network_spec_names_the_bad_field(kwargs, field):
    with pytest.raises(ConfigError, match=f"^{field}"):
        NetworkSpec(**kwargs)


def test_from_dict_refuses_unknown_keys():
    with pytest.raises(ConfigError, match="^network.depth: unknown key"):
        NetworkSpec.from_dict({"depth": 3})
    with pytest.raises(ConfigError, match="^momentum: unknown key"):
        PPOConfig.from_dict({"momentum": 0.9})
    assert PPOConfig.from_dict(CONFIG.to_dict()) == CONFIG


INFO = {
    "env_id": "LongPuzzle/MazePaint-Easy",
    "n_targets": 2,
    "buttons": ["restart"],
    "board_shape": [2, 1, LENGTH],
    "level_bits": False,
    "observation_shape": [2, 1, LENGTH],
    "n_actions": 3,
}


def test_a_policy_file_round_trips(trained, tmp_path):
    _, end, _ = trained
    params = jax.tree.map(lambda x: x[0], end.params)
    policy = Policy(SPEC, params, INFO)
    path = policy.save(tmp_path / "policy.npz")
    again = Policy.load(path)
    obs = np.zeros((2, 1, LENGTH), np.uint8)
    obs[0, 0, 0] = obs[1, 0, -1] = 1
    mask = np.array([False, True, False])
    np.testing.assert_array_equal(again.logits(obs), policy.logits(obs))
    assert again.act(obs, mask) == 1  # trained: right, the one allowed move here anyway
    rng = np.random.default_rng(0)
    assert {again.act(obs, np.array([True, True, False]), rng) for _ in range(50)} <= {0, 1}


def test_hostile_policy_files_are_refused_naming_the_file(trained, tmp_path):
    _, end, _ = trained
    params = jax.tree.map(lambda x: x[0], end.params)
    good = Policy(SPEC, params, INFO).save(tmp_path / "good.npz")
    cases = {}
    (tmp_path / "text.npz").write_text("not a zip")
    cases["text.npz"] = "not a readable"
    header, leaves = arrays.load(good, "puzzlegym-jax-policy")
    with open(tmp_path / "pickle.npz", "wb") as fh:  # an object array: pickle, never loaded
        np.savez(
            fh,
            header=np.frombuffer(json.dumps(header).encode(), np.uint8),
            **{f"leaf{i:05d}": leaf for i, leaf in enumerate(leaves[:-1])},
            **{f"leaf{len(leaves) - 1:05d}": np.array([object()], dtype=object)},
        )
    cases["pickle.npz"] = "not numbers"
    arrays.save(tmp_path / "other.npz", leaves, {**header, "format": "something-else"})
    cases["other.npz"] = "not a puzzlegym-jax-policy file"
    arrays.save(tmp_path / "short.npz", leaves[:-1], header)
    cases["short.npz"] = "holds .* arrays"
    arrays.save(tmp_path / "shape.npz", [np.zeros((7, 7), np.float32)] + leaves[1:], header)
    cases["shape.npz"] = "array 0 is"
    bad_info = {**header, "info": {**header["info"], "n_actions": 10**9}}
    arrays.save(tmp_path / "info.npz", leaves, bad_info)
    cases["info.npz"] = "n_actions"
    search = {
        "num_simulations": 2**40,  # a planner's search settings, sized to stall the agent
        "max_num_considered_actions": 4,
        "gamma": 0.99,
        "gumbel_scale": 1.0,
        "search_value": False,
    }
    arrays.save(
        tmp_path / "sims.npz", leaves, {**header, "info": {**header["info"], "search": search}}
    )
    cases["sims.npz"] = r"info.search.num_simulations: expected an integer 0..4096"
    odd = {**search, "num_simulations": 4, "search_value": "yes"}
    arrays.save(
        tmp_path / "flag.npz", leaves, {**header, "info": {**header["info"], "search": odd}}
    )
    cases["flag.npz"] = r"info.search.search_value: expected true or false"
    shy = {k: v for k, v in search.items() if k != "gamma"}
    arrays.save(
        tmp_path / "keys.npz", leaves, {**header, "info": {**header["info"], "search": shy}}
    )
    cases["keys.npz"] = r"info.search: expected a mapping of num_simulations"
    bad_net = {**header, "network": {**header["network"], "kind": "rnn"}}
    arrays.save(tmp_path / "net.npz", leaves, bad_net)
    cases["net.npz"] = "network.kind"
    cases["missing.npz"] = "cannot read it"
    for name, message in cases.items():
        with pytest.raises(ConfigError, match=f"{tmp_path / name}: .*({message})"):
            Policy.load(tmp_path / name)


def _npy_header(shape: tuple, dtype: str = "<f4") -> bytes:
    """The bytes of an .npy header (magic included) that declares ``shape`` and ``dtype``."""
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buf, {"descr": dtype, "fortran_order": False, "shape": shape}
    )
    return buf.getvalue()


def test_policy_files_that_declare_or_inflate_to_huge_arrays_are_refused_unread(
    trained, tmp_path, capsys
):
    """Issue 45, item 5: a 781-byte .npz declaring 2**40 floats crashed ``run --agent jax:``
    with a traceback, and a 1 MB member inflating to 1 GB was read whole before its refusal.
    Every member's declared dtype, shape and bytes are checked from the archive's headers
    first; a compressed member is refused before a byte of it is inflated."""
    import zipfile

    from puzzlegym import cli

    _, end, _ = trained
    good = Policy(SPEC, jax.tree.map(lambda x: x[0], end.params), INFO).save(tmp_path / "g.npz")
    header, leaves = arrays.load(good, "puzzlegym-jax-policy")
    text = json.dumps(header).encode()

    def archive(path, members, method=zipfile.ZIP_STORED):
        with zipfile.ZipFile(path, "w", method) as zf:
            zf.writestr("header.npy", _npy_header((len(text),), "|u1") + text)
            for name, data in members.items():
                zf.writestr(name, data)
        return path

    rest = {f"leaf{i:05d}.npy": _npy_header(x.shape) + x.tobytes() for i, x in enumerate(leaves)}
    declared = archive(
        tmp_path / "declared.npz", {**rest, "leaf00000.npy": _npy_header((2**40,)) + b"\0" * 16}
    )
    assert declared.stat().st_size < 20_000
    with pytest.raises(ConfigError, match=r"array 0 is float32\[1099511627776\], expected"):
        Policy.load(declared)
    with pytest.raises(ConfigError, match=r"array 0 declares .* but holds 16 bytes"):
        arrays.load(declared, "puzzlegym-jax-policy")  # no template: the bytes held still bound
    capsys.readouterr()
    args = ["run", "LongPuzzle/MazePaint-Easy", "--agent", f"jax:{declared}", "--start", "board"]
    assert cli.main([*args, "--level", "1", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "array 0 is float32[1099511627776]" in err[0], err

    zeros = 256 * 2**20  # inflates from about 1 MB
    bomb = tmp_path / "inflates.npz"
    last = f"leaf{len(leaves) - 1:05d}.npy"
    with zipfile.ZipFile(bomb, "w") as zf:  # every member stored but the last leaf
        zf.writestr("header.npy", _npy_header((len(text),), "|u1") + text)
        for name, data in rest.items():
            if name != last:
                zf.writestr(name, data)
        info = zipfile.ZipInfo(last)
        info.compress_type = zipfile.ZIP_DEFLATED
        with zf.open(info, "w", force_zip64=True) as fh:
            fh.write(_npy_header(leaves[-1].shape))
            for _ in range(zeros // 2**20):
                fh.write(bytes(2**20))
    assert bomb.stat().st_size < 2 * 2**20
    with peak_memory() as peak:
        with pytest.raises(ConfigError, match=f"array {len(leaves) - 1} is compressed"):
            Policy.load(bomb)
    assert peak.bytes < 16 * 2**20, peak
    compressed = archive(tmp_path / "compressed.npz", rest, zipfile.ZIP_DEFLATED)
    with pytest.raises(ConfigError, match="is compressed"):
        Policy.load(compressed)


def test_any_mutation_of_a_policy_file_is_loaded_or_refused_within_a_memory_bound(
    trained, tmp_path
):
    """Issue 45, the class closed for policy files: a valid file with its header's values
    replaced (types, nulls, huge numbers), an array header declaring another shape or dtype,
    or the file cut short, loads as a policy or is one ConfigError naming the file, and the
    load never holds more than a few MiB beyond the file."""

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    _, end, _ = trained
    good = Policy(SPEC, jax.tree.map(lambda x: x[0], end.params), INFO).save(tmp_path / "g.npz")
    raw = good.read_bytes()
    header, _ = arrays.load(good, "puzzlegym-jax-policy")
    odd = st.sampled_from([*ODD_VALUES, [2**40], "conv"])

    header_paths = [p for p in key_paths(header) if p]
    shape_at = raw.find(b"'shape': (")  # the first leaf's declared shape, as numpy wrote it

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def one(data):
        path = tmp_path / "mutated.npz"
        how = data.draw(st.sampled_from(["header", "shape", "cut"]), label="how")
        if how == "header":
            where = data.draw(st.sampled_from(header_paths), label="path")
            doc = replaced(header, where, data.draw(odd, label="value"))
            arrays.save(path, arrays.load(good, "puzzlegym-jax-policy")[1], doc)
        elif how == "shape":
            declared = data.draw(st.sampled_from([b"(99999999999, ", b"(0, ", b"(7, 7, "]))
            path.write_bytes(raw[:shape_at] + b"'shape': " + declared + raw[shape_at + 10 :])
        else:
            path.write_bytes(raw[: data.draw(st.integers(0, len(raw) - 1), label="at")])
        with peak_memory() as peak:
            try:
                Policy.load(path)
            except ConfigError as exc:
                assert str(exc).startswith(str(path)) and "\n" not in str(exc), exc
        assert peak.bytes < len(raw) + 8 * 2**20, peak

    one()
