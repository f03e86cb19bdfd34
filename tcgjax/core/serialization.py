"""JSON view of a state (engine_data_model.md, SERIALISATION) with an exact round trip.

``to_json(env, state)`` writes the spec's shape::

    {"envId", "envVersion", "version",
     "players":   {"player1": {"id", "name", "attributes": {...}}, ...},
     "cards":     {"card_001": {"id", "definitionId", "ownerId", "zoneId", "position",
                                "visibilityOverride", "attributes": {...}}, ...},
     "zones":     {"deck_player1": {"id", "zoneTypeId", "ownerId"}, ...},
     "turnState": {"activePlayerId", "turnNumber", "phase"},
     "env":       {"rewards", "terminated", "truncated", "stepCount", "error"},
     "game":      {other rules-state fields by name}}

Maps are ``{id: entity}`` objects keyed by the E1 ids. ``from_json(env, text)`` rebuilds a ``State``
whose every array equals the original: derived fields (observation, mask, current player) are
recomputed by the env, exactly as ``step`` computes them. Anything malformed or not matching the env
raises :class:`SerializationError` naming the field path (e.g. ``cards.card_007.zoneId``).

A game whose rules state has no ``board`` field serializes everything under ``"game"``; an env can
override ``to_json_game`` / ``from_json_game`` for a domain-specific view (the deployment game does).
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Sequence
from typing import Any

import jax
import numpy as np

from tcgjax.core.board import Board, card_id, parse_player_id, player_id
from tcgjax.core.env import Env, State
from tcgjax.core.errors import InvalidStateError, SerializationError
from tcgjax.core.files import DuplicateKeyError, json_loads
from tcgjax.core.zones import NO_OVERRIDE, VISIBILITY_NAMES

__all__ = ["to_json", "from_json", "from_json_batch", "state_to_dict", "state_from_dict"]


# --------------------------------------------------------------------------------------------------
# Generic pytree <-> JSON values


def _array_to_json(x) -> Any:
    return np.asarray(x).tolist()


def _show(value: Any, limit: int = 80) -> str:
    """``repr(value)`` for an error message, cut at ``limit`` characters; never raises (an integer
    past Python's 4,300-digit ``repr`` limit, or data nested too deep to print, is described)."""
    try:
        text = repr(value)
    except (ValueError, RecursionError):
        return f"<{type(value).__name__} too large to print>"
    return text if len(text) <= limit else f"{text[: limit - 3]}..."


def _array_from_json(value: Any, template, path: str) -> np.ndarray:
    """``value`` as a host array of ``template``'s shape and dtype, or ``SerializationError``
    naming ``path``. Host arrays: ``state_from_dict`` validates them on the host and moves the
    whole state to the device in one call (its jitted ``finalize``), not a transfer a leaf."""
    dtype = np.dtype(template.dtype)
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError, RecursionError) as exc:
        raise SerializationError(f"{path}: not an array: {_show(exc, 200)}") from None
    if arr.shape != tuple(template.shape):
        raise SerializationError(f"{path}: shape {arr.shape} != expected {tuple(template.shape)}")
    kind, got = dtype.kind, arr.dtype.kind  # b bool, i/u integers, f floats
    if kind == "b":
        if arr.size and got != "b":
            raise SerializationError(f"{path}: expected booleans, got {arr.dtype}")
    elif kind in "iu":
        if arr.size and got not in "iu":
            raise SerializationError(f"{path}: expected integers, got {arr.dtype}")
        low, high = _int_range(dtype)
        if arr.size and (arr.min() < low or arr.max() > high):
            raise SerializationError(f"{path}: value outside the {dtype} range")
    elif kind == "f":
        if arr.size and got not in "iuf":
            raise SerializationError(f"{path}: expected numbers, got {arr.dtype}")
        finite = arr[np.isfinite(arr)].astype(np.float64)
        if finite.size and np.abs(finite).max() > np.finfo(dtype).max:
            raise SerializationError(f"{path}: value outside the {dtype} range")
    return arr.astype(dtype)


@functools.cache
def _int_range(dtype: np.dtype) -> tuple[int, int]:
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def _is_struct(x) -> bool:
    return dataclasses.is_dataclass(x) and not isinstance(x, type)


def tree_to_json(tree) -> Any:
    """A struct dataclass of arrays (nested allowed) as a dict of lists."""
    if _is_struct(tree):
        return {f.name: tree_to_json(getattr(tree, f.name)) for f in dataclasses.fields(tree)}
    return _array_to_json(tree)


def tree_from_json(value: Any, template, path: str):
    """Inverse of :func:`tree_to_json` against ``template`` (a tree of ``ShapeDtypeStruct``)."""
    if _is_struct(template):
        names = [f.name for f in dataclasses.fields(template)]
        _check_keys(value, names, path)
        return template.replace(
            **{n: tree_from_json(value[n], getattr(template, n), f"{path}.{n}") for n in names}
        )
    return _array_from_json(value, template, path)


def _check_keys(
    obj: dict, expected, path: str, error: type[Exception] = SerializationError
) -> None:
    """Every key of ``expected`` and nothing else, or ``error`` naming the first missing/unknown
    key by its path (replays reuse it with ``ReplayError``); ``obj`` that is not an object
    (a dict) is refused naming ``path``."""
    _object(obj, path, error)
    missing = [k for k in expected if k not in obj]
    if missing:
        raise error(f"{path}.{missing[0]}: missing field")
    unknown = sorted(map(str, set(obj) - set(expected)))
    if unknown:
        raise error(f"{path}.{unknown[0]}: unknown field")


def _object(obj: Any, path: str, error: type[Exception] = SerializationError) -> dict:
    """``obj`` if it is an object (a dict), else ``error`` naming ``path`` and what came."""
    if not isinstance(obj, dict):
        raise error(f"{path}: expected an object, got {type(obj).__name__} {_show(obj, 40)}")
    return obj


def _get(obj: Any, key: str, path: str) -> Any:
    _object(obj, path)
    if key not in obj:
        raise SerializationError(f"{path}.{key}: missing field")
    return obj[key]


# --------------------------------------------------------------------------------------------------
# Board <-> spec shape


@functools.lru_cache(maxsize=32)
def _ids(layout) -> dict[str, Any]:
    """One layout's ids both ways, built once (``BoardLayout`` hashes by identity): the JSON view
    names ~100 cards a state, and a linear search per name (``zone_index_by_id``) cost more than
    the rest of a round trip."""
    zone_ids = [layout.zone_id(z) for z in range(layout.num_zones)]
    zone_index: dict[str, int] = {}
    for z, zid in enumerate(zone_ids):
        zone_index.setdefault(zid, z)  # the first match, as ``zone_index_by_id``
    definition: dict[str, int] = {}
    for i, did in enumerate(layout.cards.ids):
        definition.setdefault(did, i)
    visibility: dict[str | None, int] = {None: NO_OVERRIDE}
    for i, name in enumerate(VISIBILITY_NAMES):
        visibility.setdefault(name, i)
    return {
        "cards": [card_id(c) for c in range(layout.num_cards)],
        "players": [player_id(p) for p in range(layout.num_players)],
        "player": {player_id(p): p for p in range(layout.num_players)},
        "zone_ids": zone_ids,
        "zone": zone_index,
        "definition": definition,
        "visibility": visibility,
        "zones": {
            zid: {
                "id": zid,
                "zoneTypeId": type_id,
                "ownerId": None if owner is None else player_id(owner),
            }
            for zid, (type_id, owner) in zip(zone_ids, layout.zones, strict=True)
        },
    }


def _board_to_json(env: Env, board: Board) -> dict:
    layout = env.board_layout
    ids = _ids(layout)
    b = jax.tree.map(lambda x: np.asarray(x).tolist(), board)
    players = {
        ids["players"][p]: {
            "id": ids["players"][p],
            "name": ids["players"][p],
            "attributes": dict(zip(layout.player_attributes, b.player_attributes[p], strict=True)),
        }
        for p in range(layout.num_players)
    }
    definition_ids, zone_ids = layout.cards.ids, ids["zone_ids"]
    cards = {}
    for c in range(layout.num_cards):
        override = b.visibility[c]
        cards[ids["cards"][c]] = {
            "id": ids["cards"][c],
            "definitionId": definition_ids[b.definition[c]],
            "ownerId": ids["players"][b.owner[c]],
            "zoneId": zone_ids[b.zone[c]],
            "position": b.position[c],
            "visibilityOverride": None if override == NO_OVERRIDE else VISIBILITY_NAMES[override],
            "attributes": dict(zip(layout.card_attributes, b.card_attributes[c], strict=True)),
        }
    zones = {zid: dict(entry) for zid, entry in ids["zones"].items()}
    turn = {
        "activePlayerId": ids["players"][b.active_player],
        "turnNumber": b.turn_number,
        "phase": layout.phases[b.phase],
    }
    return {
        "version": b.version,
        "players": players,
        "cards": cards,
        "zones": zones,
        "turnState": turn,
    }


def _parse(fn, text, path):
    """``fn(text)`` for an id field (a string), or ``SerializationError`` naming ``path``."""
    if not isinstance(text, str):
        raise SerializationError(f"{path}: expected a string id, got {_show(text)}")
    try:
        return fn(text)
    except (ValueError, TypeError, KeyError) as exc:
        raise SerializationError(f"{path}: {exc}") from None


class _FastCards:
    """The common case of one card entry: every field present and of the right kind, ids found
    by dict lookups. ``row`` answers ``None`` at the first doubt, and :func:`_card_row` (which
    names the broken field) decides: same result, a tenth of the time."""

    def __init__(self, ids: dict, fields: list[str], attributes: tuple[str, ...], template):
        self.ids, self.keys, self.attributes = ids, set(fields), attributes
        self.attribute_keys = set(attributes)
        info = np.iinfo(template.position.dtype)
        self.position = (int(info.min), int(info.max))
        info = np.iinfo(template.card_attributes.dtype)
        self.attribute = (int(info.min), int(info.max))

    def row(self, entry: Any, c: int):
        ids = self.ids
        if type(entry) is not dict or entry.keys() != self.keys or entry["id"] != ids["cards"][c]:
            return None
        definition, owner = entry["definitionId"], entry["ownerId"]
        zone, override = entry["zoneId"], entry["visibilityOverride"]
        if not (type(definition) is str and type(owner) is str and type(zone) is str):
            return None
        if not (override is None or type(override) is str):
            return None
        found = (
            ids["definition"].get(definition),
            ids["player"].get(owner),
            ids["zone"].get(zone),
            entry["position"],
            ids["visibility"].get(override),
        )
        if None in found:
            return None
        low, high = self.position
        if type(found[3]) is not int or not low <= found[3] <= high:
            return None
        attrs = entry["attributes"]
        if type(attrs) is not dict or attrs.keys() != self.attribute_keys:
            return None
        values = [attrs[name] for name in self.attributes]
        low, high = self.attribute
        if not all(type(v) is int and low <= v <= high for v in values):
            return None
        return (*found, values)


def _card_row(layout, entry: Any, c: int, fields: list[str], template: Board):
    """One card entry's ``(definition, owner, zone, position, visibility, attributes)``, or
    ``SerializationError`` naming the field (``cards.card_007.zoneId``)."""
    num_p = layout.num_players
    path = f"cards.{card_id(c)}"
    _check_keys(entry, fields, path)
    if entry["id"] != card_id(c):
        raise SerializationError(f"{path}.id: {_show(entry['id'])} != key {card_id(c)!r}")
    definition = _parse(layout.cards.index, entry["definitionId"], f"{path}.definitionId")
    owner = _parse(lambda t: parse_player_id(t, num_p), entry["ownerId"], f"{path}.ownerId")
    zone = _parse(layout.zone_index_by_id, entry["zoneId"], f"{path}.zoneId")
    position = _int(entry["position"], f"{path}.position", template.position.dtype)
    override = entry["visibilityOverride"]
    visibility = (
        NO_OVERRIDE
        if override is None
        else _parse(VISIBILITY_NAMES.index, override, f"{path}.visibilityOverride")
    )
    attrs = entry["attributes"]
    _check_keys(attrs, layout.card_attributes, f"{path}.attributes")
    values = [
        _int(attrs[name], f"{path}.attributes.{name}", template.card_attributes.dtype)
        for name in layout.card_attributes
    ]
    return definition, owner, zone, position, visibility, values


def _check_positions(layout, zone: np.ndarray, position: np.ndarray) -> None:
    """Each zone's positions are ``0..n-1`` and ``n`` is within its ``max_size``, or
    ``SerializationError`` naming the first zone that breaks it (one sort for all zones; the
    zone-by-zone scan only to name it)."""
    counts = np.bincount(zone, minlength=layout.num_zones)
    order = np.lexsort((position, zone))
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    dense = np.array_equal(position[order], np.arange(len(zone)) - starts)
    if dense and np.all(counts <= np.asarray(layout.zone_max_size)):
        return
    for z in range(layout.num_zones):
        positions = np.sort(position[zone == z])
        if not np.array_equal(positions, np.arange(len(positions))):
            raise SerializationError(
                f"cards: positions in zone {layout.zone_id(z)!r} are {positions.tolist()}, "
                f"not 0..{len(positions) - 1}"
            )
        if len(positions) > layout.zone_max_size[z]:
            raise SerializationError(f"zones.{layout.zone_id(z)}: over max_size")
    raise AssertionError("unreachable: the vectorized position check disagreed with the scan")


def _board_from_json(env: Env, data: dict, template: Board) -> Board:
    layout = env.board_layout
    num_p, num_c = layout.num_players, layout.num_cards

    players = _get(data, "players", "$")
    _check_keys(players, [player_id(p) for p in range(num_p)], "players")
    p_attrs = np.zeros((num_p, len(layout.player_attributes)), np.int64)
    for p in range(num_p):
        path = f"players.{player_id(p)}"
        entry = players[player_id(p)]
        _check_keys(entry, ["id", "name", "attributes"], path)
        if entry["id"] != player_id(p):
            raise SerializationError(f"{path}.id: {_show(entry['id'])} != key {player_id(p)!r}")
        if entry["name"] != player_id(p):  # a state holds no names: a player's name is its id
            raise SerializationError(
                f"{path}.name: {_show(entry['name'])} != {player_id(p)!r} (a player's name is its "
                "id; a state holds no other)"
            )
        attrs = entry["attributes"]
        _check_keys(attrs, layout.player_attributes, f"{path}.attributes")
        for k, name in enumerate(layout.player_attributes):
            p_attrs[p, k] = _int(
                attrs[name], f"{path}.attributes.{name}", template.player_attributes.dtype
            )

    ids = _ids(layout)
    cards = _get(data, "cards", "$")
    _check_keys(cards, ids["cards"], "cards")
    fields = [
        "id",
        "definitionId",
        "ownerId",
        "zoneId",
        "position",
        "visibilityOverride",
        "attributes",
    ]
    fast = _FastCards(ids, fields, layout.card_attributes, template)
    rows = []
    for c in range(num_c):
        entry = cards[ids["cards"][c]]
        row = fast.row(entry, c)
        if row is None:  # something is off: the careful path names it (or accepts it)
            row = _card_row(layout, entry, c, fields, template)
        rows.append(row)
    table = np.array([row[:5] for row in rows], np.int64).reshape(num_c, 5)
    cols = dict(zip(("definition", "owner", "zone", "position", "vis"), table.T, strict=True))
    c_attrs = np.array([row[5] for row in rows], np.int64).reshape(
        num_c, len(layout.card_attributes)
    )
    _check_positions(layout, cols["zone"], cols["position"])

    zones = _get(data, "zones", "$")
    _check_keys(zones, ids["zone_ids"], "zones")
    for zid, expected in ids["zones"].items():
        if zones[zid] != expected:
            raise SerializationError(f"zones.{zid}: {_show(zones[zid])} != the env's {expected!r}")

    turn = _get(data, "turnState", "$")
    _check_keys(turn, ["activePlayerId", "turnNumber", "phase"], "turnState")
    active = _parse(
        lambda t: parse_player_id(t, num_p), turn["activePlayerId"], "turnState.activePlayerId"
    )
    phase = _parse(layout.phases.index, turn["phase"], "turnState.phase")

    def arr(value, name):
        return _array_from_json(value, getattr(template, name), name)

    return Board(
        definition=arr(cols["definition"], "definition"),
        owner=arr(cols["owner"], "owner"),
        zone=arr(cols["zone"], "zone"),
        position=arr(cols["position"], "position"),
        visibility=arr(cols["vis"], "visibility"),
        card_attributes=arr(c_attrs, "card_attributes"),
        player_attributes=arr(p_attrs, "player_attributes"),
        active_player=arr(active, "active_player"),
        turn_number=arr(
            _int(turn["turnNumber"], "turnState.turnNumber", template.turn_number.dtype),
            "turn_number",
        ),
        phase=arr(phase, "phase"),
        version=arr(_int(_get(data, "version", "$"), "version", template.version.dtype), "version"),
    )


def _int(value, path: str, dtype) -> int:
    """``value``, an integer (never a bool) in the range of the field's ``dtype``, or
    ``SerializationError`` naming ``path`` (a JSON integer has no size limit; the state's arrays
    do)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise SerializationError(f"{path}: expected an integer, got {_show(value)}")
    info = np.iinfo(dtype)
    if not info.min <= value <= info.max:
        raise SerializationError(
            f"{path}: {_show(value)} is outside the {np.dtype(dtype).name} range "
            f"[{info.min}, {info.max}]"
        )
    return value


# --------------------------------------------------------------------------------------------------
# State


@functools.lru_cache(maxsize=32)
def _compiled(env: Env):
    """Per-env: the abstract ``init`` state (shapes/dtypes), a jitted ``finalize`` and a jitted
    ``vmap(finalize)``, so derived fields are computed by compiled code exactly as ``jit(step)``
    (one game) and ``jit(vmap(step))`` (a batch) compute them."""
    return (
        jax.eval_shape(env.init, jax.random.PRNGKey(0)),
        jax.jit(env.finalize),
        jax.jit(jax.vmap(env.finalize)),
    )


def _template(env: Env) -> State:
    return _compiled(env)[0]


def state_to_dict(env: Env, state: State) -> dict:
    """The JSON-ready dict of one game's ``state`` (see the module docstring)."""
    if np.ndim(state.terminated) != 0:
        raise SerializationError("state: to_json takes one game, not a batch")
    out: dict[str, Any] = {"envId": env.id, "envVersion": env.version}
    game = state.game
    if hasattr(env, "to_json_game"):
        out.update(env.to_json_game(game))
    elif _is_struct(game) and any(f.name == "board" for f in dataclasses.fields(game)):
        out.update(_board_to_json(env, game.board))
        rest = {
            f.name: tree_to_json(getattr(game, f.name))
            for f in dataclasses.fields(game)
            if f.name != "board"
        }
        out["game"] = rest
    else:
        out["game"] = tree_to_json(game)
    out["env"] = {
        "rewards": _array_to_json(state.rewards),
        "terminated": bool(state.terminated),
        "truncated": bool(state.truncated),
        "stepCount": int(state.step_count),
        "error": int(state.error),
    }
    return out


def state_from_dict(env: Env, data: Any) -> State:
    """Inverse of :func:`state_to_dict`; raises ``SerializationError`` naming the bad field."""
    # One jitted call moves the state to the device and computes its derived fields exactly as
    # ``jit(step)`` does.
    return _compiled(env)[1](_host_state(env, data))


def _host_state(env: Env, data: Any) -> State:
    """:func:`state_from_dict` before its derived fields: the parsed and validated state as host
    arrays (``current_player``, ``observation`` and the mask are placeholders)."""
    if not isinstance(data, dict):
        raise SerializationError("$: expected a JSON object")
    if _get(data, "envId", "$") != env.id:
        raise SerializationError(f"envId: {_show(data['envId'])} != this env's {env.id!r}")
    if _get(data, "envVersion", "$") != env.version:
        raise SerializationError(
            f"envVersion: {_show(data['envVersion'])} != this env's {env.version!r}"
        )
    template = _template(env)
    game_t = template.game
    if hasattr(env, "from_json_game"):
        known = set(env.json_game_keys) | {"envId", "envVersion", "env"}
        game = env.from_json_game(data, game_t)
    elif _is_struct(game_t) and any(f.name == "board" for f in dataclasses.fields(game_t)):
        known = {
            "envId",
            "envVersion",
            "version",
            "players",
            "cards",
            "zones",
            "turnState",
            "env",
            "game",
        }
        board = _board_from_json(env, data, game_t.board)
        rest_names = [f.name for f in dataclasses.fields(game_t) if f.name != "board"]
        rest = _get(data, "game", "$")
        _check_keys(rest, rest_names, "game")
        game = game_t.replace(
            board=board,
            **{n: tree_from_json(rest[n], getattr(game_t, n), f"game.{n}") for n in rest_names},
        )
    else:
        known = {"envId", "envVersion", "env", "game"}
        game = tree_from_json(_get(data, "game", "$"), game_t, "game")
    unknown = sorted(set(data) - known)
    if unknown:
        raise SerializationError(f"{unknown[0]}: unknown field")
    env_part = _get(data, "env", "$")
    _check_keys(env_part, ["rewards", "terminated", "truncated", "stepCount", "error"], "env")
    state = State(
        current_player=np.int32(0),
        observation=np.zeros(template.observation.shape, template.observation.dtype),
        legal_action_mask=np.ones(template.legal_action_mask.shape, np.bool_),
        rewards=_array_from_json(env_part["rewards"], template.rewards, "env.rewards"),
        terminated=_array_from_json(env_part["terminated"], template.terminated, "env.terminated"),
        truncated=_array_from_json(env_part["truncated"], template.truncated, "env.truncated"),
        step_count=_array_from_json(
            _int(env_part["stepCount"], "env.stepCount", template.step_count.dtype),
            template.step_count,
            "env.stepCount",
        ),
        error=_array_from_json(
            _int(env_part["error"], "env.error", template.error.dtype), template.error, "env.error"
        ),
        game=game,
    )
    try:
        # Reachable states only: the game's invariants, named by JSON path. On the host arrays,
        # before any transfer (``validate`` reads no derived field).
        env.validate(state)
    except InvalidStateError as exc:
        raise SerializationError(f"{exc.field}: unreachable state: {exc.problem}") from exc
    return state


def to_json(env: Env, state: State, *, indent: int | None = None) -> str:
    """``state`` (one game) as a JSON string in the spec's shape."""
    return json.dumps(state_to_dict(env, state), indent=indent)


def from_json(env: Env, text: str) -> State:
    """Parse :func:`to_json` output back into a ``State`` equal array-by-array to the original.

    Raises:
      SerializationError: invalid JSON (a repeated key, bytes that are not UTF-8, an integer
        literal past Python's 4,300-digit limit and nesting too deep for the parser included), a
        missing/unknown/ill-typed field (an object where a container is expected, an integer
        outside its field's dtype), ids or values that do not exist in ``env``, zone positions
        that are not dense, or a state the rules cannot reach (``env.validate``); the message
        names the field path.
    """
    return state_from_dict(env, _load(text))


def _load(text: str) -> Any:
    """``text`` parsed as JSON, or ``SerializationError`` saying why not."""
    try:
        return json_loads(text)
    except DuplicateKeyError as exc:
        raise SerializationError(f"$: {exc}") from None
    except RecursionError:
        raise SerializationError(
            "$: not valid JSON: nested too deep for the parser (a state is a few levels deep)"
        ) from None
    except (ValueError, TypeError) as exc:  # JSONDecodeError and UnicodeDecodeError included
        raise SerializationError(f"$: not valid JSON: {exc}") from None


def from_json_batch(env: Env, texts: Sequence[str]) -> State:
    """Many :func:`to_json` documents as one batched ``State`` (every array with a leading axis
    ``[len(texts)]``): each document is parsed and validated as :func:`from_json` does, and the
    derived fields of all of them come from one ``jit(vmap(finalize))`` call, as ``jit(vmap(step))``
    computes them. For loading many positions (an evaluation set, a sweep over recorded games):
    one device call instead of one a document.

    Raises:
      SerializationError: as :func:`from_json`, the message starting with the document's index
        (``texts[3]: cards.card_007.zoneId: ...``); an empty ``texts`` (a batch has no shape
        without a state).
    """
    if isinstance(texts, (str, bytes)) or not isinstance(texts, Sequence) or not texts:
        raise SerializationError(
            f"texts: expected a non-empty list of JSON documents, got {_show(texts, 40)}"
        )
    states = []
    for i, text in enumerate(texts):
        try:
            states.append(_host_state(env, _load(text)))
        except SerializationError as exc:
            raise SerializationError(f"texts[{i}]: {exc}") from exc
    stacked = jax.tree.map(lambda *leaves: np.stack(leaves), *states)
    return _compiled(env)[2](stacked)
