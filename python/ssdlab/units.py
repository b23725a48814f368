"""Binary sizes (KiB, MiB, GiB) as docs/methods/README.md uses them, parsed and printed one way."""

from __future__ import annotations

import re
from typing import Any, TypeGuard

from ssdlab.errors import UsageError

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB
TIB = 1024 * GIB

_SUFFIX = {"": 1, "b": 1, "k": KIB, "m": MIB, "g": GIB, "t": TIB}
# ASCII digits only (re.ASCII): `\d` alone also takes full-width and other scripts' digits, and a
# size or rate is read as typed, never through int()/float(), which also take `1_0` as 10. A space
# between the number and its unit is fine (`4 g`, `520 MB/s`, as ssdlab prints them); one inside
# the number is not.
_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b)?\s*$", re.IGNORECASE | re.ASCII)


# 1 EiB: beyond any drive; every engine's offsets stay within 64 bits.
MAX_SIZE_BYTES = 1 << 60


class SizeError(UsageError):
    """A text that is no size. `what` says why in words that follow the text as given ('is not a
    size: …'), for a refusal that leads with it (methods/params.param_refusal)."""

    def __init__(self, message: str, what: str) -> None:
        super().__init__(message)
        self.what = what


SIZE_FORM = "a number in digits 0-9 with an optional k/m/g/t suffix, e.g. 4k, 1g or 1 g"


def parse_size(text: str) -> int:
    """'4k', '128KiB', '1g', '512' -> bytes (binary multiples), at most MAX_SIZE_BYTES. '64MB' is
    refused: ssdlab prints MB and GB as decimal (10⁶, 10⁹ bytes), so reading them as MiB and GiB
    here would say one thing and do another (QA: size=64MB made a 67.1 MB file)."""
    match = _SIZE_RE.match(text)
    if not match:
        raise SizeError(f"bad size {text!r}: use {SIZE_FORM}", f"is not a size ({SIZE_FORM})")
    number, suffix, unit = match.groups()
    if suffix and unit and unit.lower() == "b":
        what = _decimal_unit_refusal(number, suffix)
        raise SizeError(f"size {text!r} {what}", what)
    if not suffix and float(number) != int(float(number)):  # 1.5 bytes: a slip, not a size to round
        raise SizeError(f"bad size {text!r}: a size in bytes is a whole number; give e.g. {int(float(number))} "
                        f"or use a k/m/g/t suffix", "is not a whole number of bytes (a k/m/g/t suffix may "
                                                    "take a fraction: 1.5k)")
    size = int(float(number) * _SUFFIX[suffix.lower()])
    if size > MAX_SIZE_BYTES:
        raise SizeError(f"size {text!r} is larger than any drive (at most 1 EiB); give a real size",
                        "is larger than any drive (at most 1 EiB)")
    return size


def _decimal_unit_refusal(number: str, suffix: str) -> str:
    """Why '64MB' is no size here, with what to type for either reading."""
    prefix = suffix.lower()
    binary = f"{number}{prefix} ({number} {prefix.upper()}iB = {int(float(number) * _SUFFIX[prefix]):,} bytes)"
    decimal = float(number) * 1000 ** " kmgt".index(prefix)
    other = f" or {int(decimal)} ({number} {prefix.upper()}B)" if decimal == int(decimal) else ""
    return (f"is ambiguous: ssdlab prints {prefix.upper()}B as decimal (10^{3 * ' kmgt'.index(prefix)} bytes), but "
            f"sizes typed here are binary; give {binary}{other}")


_RATE_PREFIX = {"k": 1e3, "m": 1e6, "g": 1e9}
_RATE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmg])(i?)b(?:/s|ps)?\s*$", re.IGNORECASE | re.ASCII)
_COUNT_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([km]?)\s*$", re.IGNORECASE | re.ASCII)
RATE_EXAMPLE = ("give e.g. 520MB/s, 1.5GB/s or 520MB/s,90k: BW[,IOPS], the write rate, then 4 KiB random-write "
                "IOPS (digits 0-9, a space before the unit is fine)")
# What a storage device can write: an old USB stick's MB/s to beyond a PCIe 6.0 x16 link's
# 128 GB/s is 1e6..1e11; 4 KiB random writes from 1 IOPS to 100 million (today's fastest
# drives do a few million). Outside these a figure is a slip (KB for MB, a missing unit).
RATE_BOUNDS_BYTES_S = (1e6, 1e11)
IOPS_BOUNDS = (1.0, 1e8)


def parse_rate(text: str) -> tuple[float, float | None]:
    """'520MB/s' -> (520e6, None); '1.5GB/s,90k' -> (1.5e9, 90000.0). MB/s are decimal as
    drive specs give them, MiB/s binary; both figures must be positive."""
    rate_text, comma, iops_text = text.partition(",")
    if comma and not iops_text.strip():  # QA: `520MB/s,` was taken as if no comma were there
        raise UsageError(f"bad rate {text!r}: no IOPS after the comma; {RATE_EXAMPLE}")
    if "," in iops_text:
        raise UsageError(f"bad rate {text!r}: one comma at most; {RATE_EXAMPLE}")
    match = _RATE_RE.match(rate_text)
    if not match:
        raise UsageError(f"bad rate {text!r}: {RATE_EXAMPLE}")
    number, prefix, binary = match.groups()
    scale = 1024.0 ** " kmg".index(prefix.lower()) if binary else _RATE_PREFIX[prefix.lower()]
    bytes_s = float(number) * scale
    iops = _parse_count(iops_text, text) if iops_text.strip() else None
    if not RATE_BOUNDS_BYTES_S[0] <= bytes_s <= RATE_BOUNDS_BYTES_S[1]:
        raise UsageError(f"bad rate {text!r}: a device writes between 1 MB/s and 100 GB/s; {RATE_EXAMPLE}")
    if iops is not None and not IOPS_BOUNDS[0] <= iops <= IOPS_BOUNDS[1]:
        raise UsageError(f"bad rate {text!r}: 4 KiB random writes run between 1 and 100 million IOPS; "
                         f"{RATE_EXAMPLE}")
    return bytes_s, iops


def _parse_count(text: str, whole: str) -> float:
    match = _COUNT_RE.match(text)
    if not match:
        raise UsageError(f"bad rate {whole!r}: the IOPS after the comma are a number like 90000 or 90k; "
                         f"{RATE_EXAMPLE}")
    number, prefix = match.groups()
    return float(number) * {"": 1.0, "k": 1e3, "m": 1e6}[prefix.lower()]


def format_size(size_bytes: int) -> str:
    """Bytes -> the shortest exact binary form: 4096 -> '4KiB', 1536 -> '1536B'."""
    for unit, factor in (("TiB", TIB), ("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if size_bytes >= factor and size_bytes % factor == 0:
            return f"{size_bytes // factor}{unit}"
    return f"{size_bytes}B"


def human_size(size_bytes: int | float) -> str:
    """Bytes in the largest binary unit reaching 1: 16 GiB, 238.5 GiB, 512 B (exact when whole), as
    tables give a size and notes beside them name it."""
    for unit, factor in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(size_bytes) >= factor:
            scaled = size_bytes / factor
            return f"{scaled:,.0f} {unit}" if scaled == int(scaled) else f"{scaled:,.1f} {unit}"
    return f"{int(size_bytes)} B"


def fio_size(size_bytes: int) -> str:
    """Bytes in fio's notation; fio reads 'k' as 1024 by default (kb_base=1024)."""
    for unit, factor in (("t", TIB), ("g", GIB), ("m", MIB), ("k", KIB)):
        if size_bytes >= factor and size_bytes % factor == 0:
            return f"{size_bytes // factor}{unit}"
    return str(size_bytes)


def counted(n: int, noun: str) -> str:
    """`1 record`, `2 records`: a count with its noun in the number it takes."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def format_duration(seconds: float) -> str:
    """Seconds -> '1h05m03s' or '4m07s' (rounded to the second)."""
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    return f"{hours}h{rest // 60:02d}m{rest % 60:02d}s" if hours else f"{rest // 60}m{rest % 60:02d}s"


def seconds_text(seconds: float) -> str:
    """A time in a sentence, to two significant figures at least and never finer than a
    millisecond: to a tenth of a second from 1 s up ('560', '80.5', '2012.5'), a hundredth from
    0.1 s ('0.5'), a millisecond below ('0.05', '0.002'), the finest time the engines are told
    (methods/params.MIN_SECONDS: fio counts whole milliseconds). QA: a 2 ms run "ran 0 s" and a
    50 ms one "0.1 s", beside a note of "0.002 s" and "0.05 s". A run's time is its periods' real
    lengths, and the simulator's last period holds the commands that complete just after the
    runtime: a 560 s torture covers 560.003 s, a 2 ms one 2.3 ms and a round's half-second period
    0.501 s, none of them worth saying. Never an exponent: a week is '604800'."""
    return _seconds_places(seconds, 0)


def _seconds_places(seconds: float, extra: int) -> str:
    """seconds_text with `extra` more decimal places at most."""
    size = abs(seconds)
    places = (1 if size >= 1 else 2 if size >= 0.1 else 3) + extra
    return f"{seconds:.{places}f}".rstrip("0").rstrip(".")


def number_text(value: float) -> str:
    """A parameter's number said back as it reads: '12.345', '400', '399.9999', never rounded to
    another number (`{:g}` keeps 6 figures: 399.9999 read '400')."""
    text = f"{value:g}"
    return text if float(text) == value else repr(value)


# Places seconds_apart may add before it prints the times in full.
MAX_EXTRA_PLACES = 9


def seconds_apart(first: float, second: float) -> tuple[str, str]:
    """Two times for a sentence that sets them side by side, as seconds_text prints them, or with the
    fewest places more with which they read in the order they are: QA: a 399.99 s torture "runs at
    most 400 s, shorter than the 400 s steady-state window"."""
    wanted = (first > second) - (first < second)
    for extra in range(MAX_EXTRA_PLACES + 1):
        texts = _seconds_places(first, extra), _seconds_places(second, extra)
        read = float(texts[0]), float(texts[1])
        if (read[0] > read[1]) - (read[0] < read[1]) == wanted:
            return texts
    return repr(first), repr(second)


# Unit -> format spec of the number, as tables show it (report/formatting.py), and as a method's
# verdicts and notes name the same figure (in_unit): QA read "No cache runs out within 9.7 GB"
# beside "the whole 9.66 GB pass" in one summary.
UNIT_FORMATS = {"IOPS": ",.0f", "MB/s": ",.1f", "µs": ",.1f", "ms": ",.3f", "%": ",.1f", "GB": ",.2f",
                "s": ",.1f", "points": ",.0f", "times": ",.2f", "°C": ",.1f"}
# Units whose whole numbers are still shown with decimals (a latency of 80 µs is 80.0; a
# temperature of 70 °C is 70.0 beside 49.9).
FRACTIONAL_UNITS = frozenset({"MB/s", "µs", "ms", "%", "GB", "°C"})


def printed_decimals(unit: str) -> int:
    """The decimals a figure in `unit` is stated to in every table and sentence (UNIT_FORMATS): MB/s
    to a tenth, IOPS whole; a figure is placed or compared at them where the reader would tell it."""
    spec = UNIT_FORMATS.get(unit, "")
    return int(spec.rsplit(".", 1)[1].rstrip("f")) if "." in spec else 0


def in_unit(value: float, unit: str) -> str:
    """A figure with its unit as a table shows it: in_unit(9.6637, "GB") is '9.66 GB'."""
    return f"{format(value, UNIT_FORMATS.get(unit, ''))} {unit}"


DECIMAL_UNITS = (("EB", 1e18), ("PB", 1e15), ("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3))


def decimal_capacity(size_bytes: int | float) -> str:
    """Capacity as drive labels print it: decimal units, three significant figures, never an
    exponent (a mistyped size=999999t is 1.1 EB, not 1.1e+06 TB). The unit is the one the figure
    reads in once rounded: QA: a 931 GiB target (999.65 GB) read "1e+03 GB", not "1 TB"."""
    shown = float(f"{size_bytes:.3g}") if abs(size_bytes) >= DECIMAL_UNITS[-1][1] else size_bytes
    for unit, factor in DECIMAL_UNITS:
        if abs(shown) >= factor:
            return f"{_three_figures(size_bytes / factor)} {unit}"
    return f"{size_bytes:g} B"


def _three_figures(value: float) -> str:
    # '{:.3g}' switches to an exponent once the figure rounds to 1000; with at most 1000 EB that
    # only happens at the top unit, where the whole number is the clearest form.
    text = f"{value:.3g}"
    return text if "e" not in text else f"{value:,.0f}"


def signed(value: float, digits: int = 0) -> str:
    """A change with its sign, '±0' when it rounds to nothing (never '-0' or '+0')."""
    text = f"{value:+.{digits}f}"
    return "±" + text[1:] if float(text) == 0 else text


def share_pct(part: float, whole: float) -> float | None:
    """`part` as a % of `whole`; None when the whole is nothing (a share of no I/O is no figure)."""
    return 100.0 * part / whole if whole else None


# 0 °C in kelvin. NVMe gives every temperature in whole kelvin (the SMART log's composite and
# sensor temperatures, id-ctrl's WCTEMP and CCTEMP; nvme-cli's JSON prints them as the integers the
# drive gave): each becomes °C through kelvin_to_c, and only there, so a drive's own threshold and
# its readings are on one scale (a drive at exactly its 343 K WCTEMP reads 69.85 °C, at it).
KELVIN_AT_0_C = 273.15


def kelvin_to_c(kelvin: float) -> float:
    """A temperature in kelvin, in °C."""
    return kelvin - KELVIN_AT_0_C


def c_to_kelvin(celsius: float) -> float:
    """A temperature in °C, in kelvin (kelvin_to_c's inverse: a drive's threshold named as it gives it)."""
    return celsius + KELVIN_AT_0_C


def fahrenheit_to_c(fahrenheit: float) -> float:
    """A temperature in °F, in °C (what a reading that looks like °F would be: methods/thermal.py)."""
    return (fahrenheit - 32.0) * 5.0 / 9.0


def is_number(value: Any) -> TypeGuard[int | float]:
    """A real number (bools are not figures)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def number_slip(text: str) -> str | None:
    """Why `text`, which Python's int() or float() would read, is no number as typed here: a `_`
    (int('1_0') is 10) or a digit that is not 0-9 (int() reads a full-width 5 as 5); None when it
    has neither. QA: `runtime_s=1_0` ran 10 s, `--rate` in full-width digits was taken."""
    if "_" in text:
        return "has a _ in it (a number is digits 0-9 alone: 10, not 1_0)"
    if any(not char.isascii() and char.isdigit() for char in text):
        return "has a digit other than 0-9 (a full-width or other script's digit)"
    return None


def is_whole_number(text: str) -> bool:
    """Whether `text` is ASCII digits only: str.isdigit() also takes '²' and other digits that
    int() refuses, which then escaped input checks as a ValueError."""
    return text.isascii() and text.isdigit()


# What a metric's name says its unit is, for a metric no method declares (a method this ssdlab
# does not know, an older bundle's extra figure): the first suffix it ends with (or is, without
# its underscore: `mb_s`). One rule for the report's tables and compare's differences, which
# read it apart and differently (QA: the report had no °C, so a `max_temp_c` printed as a bare
# number beside compare's °C difference). `_mb_s` comes before `_s`, which it also ends with.
NAME_UNITS: tuple[tuple[str, str], ...] = (
    ("_mb_s", "MB/s"), ("_iops", "IOPS"), ("_us", "µs"), ("_ms", "ms"), ("_pct", "%"), ("_gb", "GB"),
    ("_c", "°C"),  # a temperature or a change in it: `max_temp_c`, `temp_rise_c`
    ("_bytes", "bytes"), ("_s", "s"),
)


def unit_from_name(name: str) -> str:
    """A metric's unit as its name says it (NAME_UNITS); "" when it says none."""
    for suffix, unit in NAME_UNITS:
        if name.endswith(suffix) or name == suffix[1:]:
            return unit
    return ""
