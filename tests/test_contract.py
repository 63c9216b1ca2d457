import dataclasses
import json

import pytest

from mjxwalk.contract import ObsBlock, PolicyContract
from mjxwalk.errors import ContractError


def make(**changes):
    base = dict(
        robot="r", joint_names=("a", "b"), servo_ids=(1, 2), default_pose=(0.1, -0.2),
        action_scale=(0.3, 0.3), joint_lower=(-1.0, -1.0), joint_upper=(1.0, 1.0),
        kp=(21.0, 21.0), kd=(0.0, 0.0), torque_limit=(4.1, 4.1), velocity_limit=(4.8, 4.8),
        control_period=0.02, obs_blocks=(ObsBlock("gyro", 3, 0.25), ObsBlock("joint_pos", 2, 1.0)),
        history_length=2, command_names=("vx", "vy", "yaw_rate"),
        command_low=(-0.3, -0.2, -1.0), command_high=(0.5, 0.2, 1.0), gait_frequency=1.5)
    base.update(changes)
    return PolicyContract(**base)


def test_json_round_trip_is_exact():
    c = make()
    again = PolicyContract.from_json(c.to_json())
    assert again == c
    assert again.hash == c.hash


def test_sizes_and_slices():
    c = make()
    assert c.frame_size == 5
    assert c.observation_size == 10
    assert c.block_slice("joint_pos") == slice(3, 5)


@pytest.mark.parametrize("field,value", [
    ("default_pose", (0.1, -0.25)), ("history_length", 3), ("control_period", 0.025),
    ("obs_blocks", (ObsBlock("gyro", 3, 0.5), ObsBlock("joint_pos", 2, 1.0))),
    ("servo_ids", (2, 1)), ("kp", (20.0, 21.0)), ("gait_frequency_span", 0.5),
])
def test_hash_changes_with_every_field(field, value):
    assert make(**{field: value}).hash != make().hash


def test_a_clock_action_adds_one_output():
    assert make().action_size == 2
    c = make(gait_frequency_span=0.5)
    assert c.action_size == 3
    assert PolicyContract.from_json(c.to_json()) == c
    with pytest.raises(ContractError, match="gait_frequency_span 2.0 must be >= 0 and below"):
        make(gait_frequency_span=2.0)


def shifted(span=0.5, **changes):
    """A contract whose policy shifts its clock, with the frame block that shows the shift."""
    blocks = make().obs_blocks + (ObsBlock("gait_phase_shift", 1, 1.0),)
    return make(gait_phase_offset_span=span, obs_blocks=blocks, **changes)


def test_a_phase_offset_action_adds_one_output():
    c = shifted()
    assert c.action_size == 3 and c.frame_size == make().frame_size + 1
    assert c.hash not in (make().hash, shifted(0.6).hash)
    assert PolicyContract.from_json(c.to_json()) == c
    with pytest.raises(ContractError, match=r"gait_phase_offset_span 4.0 must be in \[0, pi\]"):
        shifted(4.0)
    with pytest.raises(ContractError, match="both set: a policy has one clock action"):
        shifted(gait_frequency_span=0.5)


def test_a_phase_offset_needs_a_clock_and_its_block():
    with pytest.raises(ContractError, match="needs a gait clock .* and the gait_phase_shift"):
        make(gait_phase_offset_span=0.5)  # no block to show the shift
    with pytest.raises(ContractError, match="needs a gait clock"):
        shifted(gait_frequency=0.0)
    with pytest.raises(ContractError, match="gait_phase_shift observation block needs"):
        dataclasses.replace(shifted(), gait_phase_offset_span=0.0)


def test_contracts_without_a_clock_action_keep_their_hash():
    """Written before the clock spans existed (the hash make() had then), and read back
    from such a file: run directories and exported policies of that time still load."""
    assert make().hash == "0eeb300ee0e9f79e4431730fbe3c0fe09c4159ba51e411d023be3355e020c887"
    old = json.loads(make().to_json())
    del old["gait_frequency_span"], old["gait_phase_offset_span"]
    assert PolicyContract.from_dict(old) == make()


def test_edited_contract_is_rejected():
    d = json.loads(make().to_json())
    d["default_pose"][0] = 0.5  # edited by hand after export
    with pytest.raises(ContractError, match="hash mismatch"):
        PolicyContract.from_dict(d)


def test_missing_and_unknown_fields_are_named():
    d = json.loads(make().to_json())
    del d["hash"], d["kp"]
    with pytest.raises(ContractError, match=r"missing fields \['kp'\]"):
        PolicyContract.from_dict(d)
    d = json.loads(make().to_json())
    del d["hash"]
    d["kpp"] = [1, 2]
    with pytest.raises(ContractError, match="unknown contract fields"):
        PolicyContract.from_dict(d)


def test_malformed_json_and_lengths():
    with pytest.raises(ContractError, match="not valid JSON"):
        PolicyContract.from_json("{not json")
    with pytest.raises(ContractError, match="kp has 1 values for 2 joints"):
        make(kp=(1.0,))
    with pytest.raises(ContractError, match="format 99"):
        PolicyContract.from_dict({**dataclasses.asdict(make()), "format_version": 99})
