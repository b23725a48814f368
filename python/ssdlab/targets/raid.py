"""`raid0:/dev/A,/dev/B[,...][?chunk_kib=64]`: a Linux md RAID-0 built from member devices.

Safety (docs/safety.md) holds for every member as for a single device: each must be unused
(not mounted, not swap, no holders, not backing the root file system) and confirmed by its
own serial (`--yes=SERIAL_A,SERIAL_B`, any order; a device without a serial by its kernel
name). Building the array writes md metadata to every member, so the array is built only
after all of that, in `prepare`, with

    mdadm --create /dev/md/ssdlab-raid0 --run --level=0 --chunk=K --raid-devices=N --metadata=1.2 MEMBERS

and torn down by `release` (the runner calls it when the run ends, also on Ctrl-C or a
failure; an atexit hook is the last resort) with `mdadm --stop` and `mdadm --zero-superblock`
on every member, so no member is left assembled or auto-assembling at the next boot.

Every command goes through an injectable runner, so tests play back recorded outputs (this
kernel has no md); the sequence is the one a normal Linux host runs.
"""

from __future__ import annotations

import atexit
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ssdlab.errors import SafetyError, TargetError, UsageError
from ssdlab.targets.base import MEMBER_FACTS, MEMBER_FIELDS, SafetyState, Target, TargetInfo, array_model
from ssdlab.targets.block import BlockTarget
from ssdlab.targets.safety import Openers, in_use_refusal, openers_while_measuring, writers_while_writing
from ssdlab.targets.spec import split_query
from ssdlab.targets.sysinfo import SysRoot, disk_of
from ssdlab.units import is_whole_number

MD_NAME = "ssdlab-raid0"
CHUNKS_KIB = (8, 16, 32, 64, 128)  # the chunk sweep a review runs
DEFAULT_CHUNK_KIB = 64


@dataclass(frozen=True)
class CmdResult:
    code: int
    stdout: str
    stderr: str


Exec = Callable[[Sequence[str]], CmdResult]


def exec_command(argv: Sequence[str]) -> CmdResult:
    """Run an administration command (mdadm) with no terminal input; never raises. It runs in a
    session of its own: a Ctrl-C typed at the terminal goes to the whole foreground process group,
    and would kill mdadm halfway through building or tearing down the array; ssdlab's own stop
    handling waits for it to finish instead (the timeout bounds the wait)."""
    try:
        done = subprocess.run(list(argv), capture_output=True, text=True, timeout=120, check=False,
                              stdin=subprocess.DEVNULL, start_new_session=True)
    except FileNotFoundError:
        return CmdResult(127, "", f"{argv[0]}: command not found (install mdadm)")
    except (OSError, subprocess.SubprocessError) as err:
        return CmdResult(1, "", f"{argv[0]}: {err}")
    return CmdResult(done.returncode, done.stdout, done.stderr)


def create_argv(md_path: str, chunk_kib: int, members: Sequence[str]) -> list[str]:
    return ["mdadm", "--create", md_path, "--run", "--level=0", f"--chunk={chunk_kib}",
            f"--raid-devices={len(members)}", "--metadata=1.2", *members]


def teardown_argvs(md_path: str, members: Sequence[str]) -> list[list[str]]:
    return [["mdadm", "--stop", md_path], *(["mdadm", "--zero-superblock", m] for m in members)]


def parse_chunk_kib(text: str) -> int:
    if not is_whole_number(text) or int(text) not in (4, *CHUNKS_KIB, 256, 512, 1024):
        raise UsageError(f"raid0 target: chunk_kib must be one of 4, {', '.join(map(str, CHUNKS_KIB))}, 256, 512, "
                         f"1024, not {text!r}")
    return int(text)


def member_specs(spec: str) -> list[str]:
    """The member devices a `raid0:` target string names, in its order."""
    base, _ = split_query(spec.removeprefix("raid0:"))
    return [p for p in base.split(",") if p]


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "no message")


@dataclass
class Raid0Target(Target):
    spec: str
    members: tuple[BlockTarget, ...]
    chunk_kib: int = DEFAULT_CHUNK_KIB
    sysroot: SysRoot = field(default_factory=SysRoot)
    exec: Exec = field(default=exec_command, repr=False)
    open_md: Callable[[str], BlockTarget] | None = field(default=None, repr=False)
    kind = "block"
    _authorized: bool = field(default=False, repr=False)
    _md: BlockTarget | None = field(default=None, repr=False)
    _built: bool = field(default=False, repr=False)

    @classmethod
    def from_spec(cls, spec: str, sysroot: SysRoot | None = None) -> Raid0Target:
        _, options = split_query(spec.removeprefix("raid0:"))
        paths = member_specs(spec)
        unknown = set(options) - {"chunk_kib"}
        if unknown:
            raise UsageError(f"raid0 target: unknown option {sorted(unknown)[0]!r}; only chunk_kib")
        if len(paths) < 2 or len(set(paths)) != len(paths):
            raise UsageError("raid0 target: give two or more different member devices, "
                             "e.g. raid0:/dev/nvme0n1,/dev/nvme1n1?chunk_kib=64")
        root = sysroot or SysRoot()
        members = tuple(BlockTarget.from_spec(p, root) for p in paths)
        if len({m.name for m in members}) != len(members):
            raise UsageError("raid0 target: two members are the same device")
        names = {m.name for m in members}
        inside = next((m for m in members if disk_of(root, m.name) != m.name and disk_of(root, m.name) in names), None)
        if inside is not None:  # the array would stripe over the same blocks twice
            raise UsageError(f"raid0 target: member {inside.spec} is a partition of member "
                             f"/dev/{disk_of(root, inside.name)}; give devices that do not overlap")
        return cls(spec=spec, members=members, chunk_kib=parse_chunk_kib(options.get("chunk_kib", "64")),
                   sysroot=root)

    @property
    def md_path(self) -> str:
        return str(self.sysroot.dev / "md" / MD_NAME)

    # ---- safety: every member as a single device ---------------------------------------

    def safety(self) -> SafetyState:
        states = [(m.name, m.safety()) for m in self.members]
        reasons = tuple(f"{name}: {r}" for name, s in states for r in s.reasons)
        return SafetyState(writable=not reasons, reasons=reasons,
                           mounted_at=tuple(p for _, s in states for p in s.mounted_at),
                           holders=tuple(h for _, s in states for h in s.holders),
                           swap=any(s.swap for _, s in states), root_device=any(s.root_device for _, s in states),
                           readers=tuple(r for _, s in states for r in s.readers))

    def _devices(self) -> list[BlockTarget]:
        """What writing the array writes: every member, and once built the array itself."""
        return [*self.members, *([self._md] if self._md is not None else [])]

    def _reasons(self, of: Callable[[BlockTarget], Sequence[str]]) -> list[str]:
        """Every device's reasons, each said of its device."""
        return [reason if reason.startswith(f"{device.name} ") else f"{device.name}: {reason}"
                for device in self._devices() for reason in of(device)]

    def write_refusal(self) -> str | None:
        """Any member in use, and once built the array itself (mounted, held, mapped by a loop)."""
        reasons = self._reasons(lambda device: device.safety().reasons)
        # One refusal naming every device's reasons: each member's own said the promise again (QA).
        return in_use_refusal(self.spec, "a device", reasons) if reasons else None

    def uses_while_writing(self) -> list[str]:
        """Why the array or a member is in use now, each read as a single device's while fio
        writes it (BlockTarget.uses_while_writing; engines/fio_process.UseWatch): a loop stacked on
        a member or on the array, a mount of the array, a member taken by something else. The
        array's hold on its members is its own (own_holders), no use."""
        return self._reasons(BlockTarget.uses_while_writing)

    def writers_while_writing(self) -> list[str]:
        """Other processes writing the array or a member (one scan of every process for all of
        them: safety.writers_while_writing). md writes its members from the kernel, with no
        process's file, so it is not one."""
        return writers_while_writing(self.sysroot, [device.name for device in self._devices()])

    def openers_while_measuring(self) -> Openers:
        """Other processes writing or reading the array or a member now, in one scan for all
        (safety.openers_while_measuring; the engine's watch reads it during every workload)."""
        return openers_while_measuring(self.sysroot, [device.name for device in self._devices()])

    def unavailable(self) -> str | None:
        """A kernel without md cannot build the array (QA: `plan` did not say so; `run` refused
        only at the build)."""
        if (self.sysroot.proc / "mdstat").exists():
            return None
        return (f"{self.spec}: this kernel has no md (software RAID) support: no {self.sysroot.proc / 'mdstat'}; "
                "load the md_mod and raid0 modules")

    def authorize_writes(self, destroy: bool, confirmed_serial: str | None) -> None:
        """Every member through a single device's checks, each confirmed by its own serial. A member
        in use is said first, before anything about the confirmation (docs/safety.md); a kernel
        that cannot build the array next."""
        self._authorized = False
        refusal = self.write_refusal()
        if refusal:
            raise SafetyError(refusal)
        missing = self.unavailable()
        if missing:
            raise TargetError(missing)
        tokens = [m.confirmation_token() for m in self.members]
        given = [t.strip() for t in (confirmed_serial or "").split(",") if t.strip()]
        how = ",".join(tokens)
        if not destroy or not given:
            raise SafetyError(f"{self.spec}: building a RAID-0 writes md metadata to every member and the tests "
                              f"destroy their data; add --destroy --yes={how} (each member's serial)")
        strangers = [g for g in given if g not in tokens]
        if strangers:
            raise SafetyError(f"{self.spec}: --yes names {strangers[0]!r}, which is no member's serial; "
                              f"the members are {how}")
        for member, token in zip(self.members, tokens, strict=True):
            if token not in given:
                raise SafetyError(f"{self.spec}: member {member.spec} is not confirmed: add its serial {token!r} "
                                  f"to --yes (--yes={how})")
            member.authorize_writes(destroy, token)
        self._authorized = True

    def writes_authorized(self) -> bool:
        return self._authorized and all(m.writes_authorized() for m in self.members) and (
            self._md is None or self._md.writes_authorized())

    # ---- identity --------------------------------------------------------------------------

    def info(self) -> TargetInfo:
        """The array as a whole: its own model and serial (both in member order: array_model),
        its capacity, and of its members' facts what is true of all of it (array_facts, which
        TargetInfo applies to the MEMBER_FACTS kept in extra; None where they differ). Built
        afresh, not from a member's, so nothing of one member passes as the array's."""
        infos = [m.info() for m in self.members]
        per_member = min(i.capacity_bytes for i in infos) // (self.chunk_kib * 1024) * (self.chunk_kib * 1024)
        capacity = self._md.info().capacity_bytes if self._md is not None else per_member * len(infos)
        members = [i.model_dump(include=set(MEMBER_FIELDS)) for i in infos]
        return TargetInfo(
            spec=self.spec, kind="block", path=self.md_path if self._md is not None else None,
            model=array_model([i.model or "?" for i in infos]), serial=self.confirmation_token(),
            capacity_bytes=capacity, safety=self.safety(),
            extra={"raid0_members": [i.extra | {"spec": i.spec, "model": i.model, "serial": i.serial,
                                                "capacity_bytes": i.capacity_bytes} for i in infos],
                   MEMBER_FACTS: members,
                   "chunk_kib": self.chunk_kib, "assembled": self._md is not None,
                   "capacity_note": "" if self._md is not None else
                   "before assembly: members x smallest member cut to whole chunks (md's metadata takes a "
                   "little more)"},
        )

    # ---- build and tear down ------------------------------------------------------------

    def exclusive_paths(self) -> tuple[Path, ...]:
        return tuple(m.device_path for m in self.members)

    def write_held_paths(self) -> tuple[Path, ...]:
        """The assembled array (md itself holds its members)."""
        return self._md.write_held_paths() if self._md is not None else ()

    def confirmation_token(self) -> str:
        """Every member's own token, in member order: --yes=SERIAL_A,SERIAL_B."""
        return ",".join(m.confirmation_token() for m in self.members)

    def prepare(self) -> None:
        if self._md is not None:
            return
        if not self._authorized:
            raise SafetyError(f"{self.spec}: the array is built only after every member is confirmed "
                              "(--destroy --yes=SERIAL,SERIAL)")
        missing = self.unavailable()
        if missing:
            raise TargetError(missing)
        refusal = self.write_refusal()  # fresh, right before the members are written
        if refusal:
            raise SafetyError(refusal)
        members = [str(m.device_path) for m in self.members]
        self._built = True  # from here on, release() tears down whatever mdadm left
        atexit.register(self.release)
        done = self.exec(create_argv(self.md_path, self.chunk_kib, members))
        if done.code != 0:
            problems = self._teardown()
            also = f"; tearing down: {'; '.join(problems)}" if problems else ""
            raise TargetError(f"{self.spec}: mdadm --create failed (exit {done.code}): "
                              f"{_first_line(done.stderr or done.stdout)}{also}")
        self._md = self._open_md()

    def _open_md(self) -> BlockTarget:
        try:
            md = self.open_md(self.md_path) if self.open_md else BlockTarget.from_spec(self.md_path, self.sysroot)
            md.authorize_writes(True, md.confirmation_token())  # our own array; still checked for use
        except Exception:
            self.release()
            raise
        for member in self.members:  # the array holds them now: expected, and the array is checked instead
            member.own_holders = frozenset({md.name})
        return md

    def _teardown(self) -> list[str]:
        problems = []
        for argv in teardown_argvs(self.md_path, [str(m.device_path) for m in self.members]):
            done = self.exec(argv)
            if done.code != 0:
                problems.append(f"{' '.join(argv[:2])} {argv[-1]}: {_first_line(done.stderr or done.stdout)}")
        return problems

    def release(self) -> None:
        """Stop the array and wipe the md metadata from every member; idempotent."""
        if not self._built:
            return
        self._built, self._md = False, None
        for member in self.members:
            member.own_holders = frozenset()
        atexit.unregister(self.release)
        problems = self._teardown()
        if problems:
            raise TargetError(f"{self.spec}: tearing down the RAID-0 left work to do by hand: {'; '.join(problems)}")

    @property
    def fio_filename(self) -> str:
        if self._md is None:
            raise TargetError(f"{self.spec}: the RAID-0 is not built yet")
        return self._md.fio_filename

    @property
    def device_path(self) -> Path:
        return Path(self.fio_filename)
