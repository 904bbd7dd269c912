"""`derive build` against a hostile bank: a FIFO named *.toml with the cache on, paths of the
site that would be both a file and a folder, cached texts written as read."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from derive.cli.main import main

ROOT = Path(__file__).resolve().parent.parent

ONE = """\
[[exercise]]
id = "{id}"
recipe = "sgd_step"
[exercise.given]
w = 1
lr = 0.1
records = [[2, 4]]
[exercise.claims]
prediction = 2
"""


pytestmark = pytest.mark.usefixtures("own_cache")  # each test its own cache folder


def write(path: Path, ex_id: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(ONE.format(id=ex_id), encoding="utf-8")


def test_a_fifo_named_toml_with_the_cache_on_is_refused_not_waited_on(tmp_path):
    bank = tmp_path / "bank"
    write(bank / "a.toml", "a")
    os.mkfifo(bank / "x.toml")
    site = tmp_path / "site"
    env = {**os.environ, "DERIVE_CACHE_DIR": str(tmp_path / "cache")}
    try:  # the bound only turns a hang into a failure; it is far past any run's length
        done = subprocess.run([sys.executable, "-m", "derive", "build", str(bank), "-o",
                               str(site), "--only", "check", "--lang", "en", "--quiet"],
                              capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    except subprocess.TimeoutExpired:
        pytest.fail("derive build waited on a FIFO named x.toml")
    assert done.returncode == 2, done.stderr
    index = (site / "index.html").read_text(encoding="utf-8")
    assert "is a FIFO" in index and (site / "a" / "a" / "check.txt").is_file()


def test_a_site_path_that_would_be_a_file_and_a_folder_refuses_that_file(tmp_path, capsys):
    bank = tmp_path / "bank"
    write(bank / "a.toml", "b")  # its check file: SITE/a/b/check.txt
    write(bank / "a" / "b.toml", "check.txt")  # its folder: SITE/a/b/check.txt/
    write(bank / "index.zh.html.toml", "z")  # its folder: the Chinese index's name
    write(bank / "index.html" / "y.toml", "y")
    write(bank / "c.toml", "c")
    site = tmp_path / "site"
    for _ in range(2):  # cold, then warm
        code = main(["build", str(bank), "-o", str(site), "--only", "check", "--quiet"])
        err = capsys.readouterr().err
        assert code == 2 and not err, err
        index = (site / "index.html").read_text(encoding="utf-8")
        assert index.count("its site folder") == 3, index
        assert "a/b/check.txt would also be a file of exercise b" in index
        assert (site / "a" / "b" / "check.txt").is_file() and (site / "c" / "c").is_dir()
        assert (site / "index.zh.html").is_file() and not (site / "index.html").is_dir()


def test_ctrl_c_just_after_the_site_folder_is_made_leaves_nothing(tmp_path, capsys,
                                                                   monkeypatch):
    from derive.cli import build

    real = os.mkdir

    def made_then_interrupted(path, *args, **kwargs):
        real(path, *args, **kwargs)
        if str(path).endswith(".tmp") and Path(path).name.startswith(".site."):
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C the instant the folder exists

    monkeypatch.setattr(build.os, "mkdir", made_then_interrupted)
    bank = tmp_path / "bank"
    write(bank / "a.toml", "a")
    # as the program runs it: Python's own Ctrl-C handler, which derive replaces with its own
    # (a pytest-xdist worker starts with another one, which derive leaves alone)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        code = main(["build", str(bank), "-o", str(tmp_path / "site"), "--only", "check",
                     "--quiet", "--no-cache"])
    finally:
        signal.signal(signal.SIGINT, previous)
    assert code == 130 and "interrupted" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "cache") == ["bank"]


def test_a_warm_build_reads_cached_texts_as_it_writes_them(tmp_path, capsys):
    from derive.cli import build
    from derive.cli.cache import Cache

    bank = tmp_path / "bank"
    for name in ("a", "b", "c"):
        write(bank / f"{name}.toml", name)
    sites = []
    for n in range(2):  # cold, then warm
        site = tmp_path / f"site{n}"
        assert main(["build", str(bank), "-o", str(site), "--lang", "en"]) == 0
        assert f"{3 * n} from the cache" in capsys.readouterr().out
        sites.append({str(p.relative_to(site)): p.read_bytes() for p in site.rglob("*")
                      if p.is_file()})
    assert sites[0] == sites[1] and "b/b/key.en.md" in sites[1]
    names = [name for _, name in build.artefact_files(("check", "key"), ("en",))]
    cache = Cache.open()
    assert main(["build", str(bank), "-o", str(tmp_path / "site2"), "--lang", "en",
                 "--only", "check,key"]) == 0
    items = build.load_bank(str(bank), cache, names)
    assert len(items) == 3 and all(i.cached for i in items)
    # no text held: the parent's memory does not grow with the bank's texts
    assert all(not any(isinstance(t, (str, bytes)) for t in i.texts.values()) for i in items)
    assert all(set(i.addresses) == set(names) for i in items)


def test_a_file_name_that_is_not_utf8_is_shown_escaped_and_linked_by_its_bytes(tmp_path,
                                                                                capsys):
    bank = tmp_path / "bank"
    bank.mkdir()
    name = os.fsdecode(b"\xff\x1bx.toml")  # the byte 0xff, then ESC
    write(bank / name, "a")
    site = tmp_path / "site"
    code = main(["build", str(bank), "-o", str(site), "--only", "check", "--lang", "en",
                 "--quiet"])
    assert code == 0, capsys.readouterr().err
    index = (site / "index.html").read_bytes().decode("utf-8")  # the page is UTF-8
    assert "bank/\\xff\\x1bx.toml</td>" in index and "\x1b" not in index
    assert '<a href="%FF%1Bx/a/check.txt">' in index
    assert (site / os.fsdecode(b"\xff\x1bx") / "a" / "check.txt").is_file()


def test_a_time_bound_past_the_largest_says_the_largest(tmp_path, capsys):
    bank = tmp_path / "bank"
    write(bank / "a.toml", "a")
    code = main(["build", str(bank), "-o", str(tmp_path / "site"), "--total-time-limit",
                 "1e300"])
    err = capsys.readouterr().err
    assert code == 2 and "at most 1,000,000,000" in err, err


def test_a_site_inside_the_bank_that_holds_an_exercise_file_is_refused(tmp_path, capsys):
    bank = tmp_path / "bank"
    write(bank / "a.toml", "a")
    write(bank / "old" / "z.toml", "z")
    (bank / "old" / ".derive-site").write_text("", encoding="utf-8")  # as if built there
    code = main(["build", str(bank), "-o", str(bank / "old"), "--only", "check", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "holds the bank's file" in err, err
    assert (bank / "old" / "z.toml").read_text(encoding="utf-8") == ONE.format(id="z")



@pytest.mark.parametrize("make", ["file", "missing-parent"])
def test_a_refused_site_name_is_quoted_short_and_escaped(tmp_path, capsys, make):
    """-o's refusals quote the name as every message quotes a path: control characters
    escaped, a long name's middle left out (a 3,000-character name made a 3,000-character
    line, ESC reached the terminal raw)."""
    bank = tmp_path / "bank"
    write(bank / "a.toml", "a")
    name = "x" * 200 + "s\x1b[31m"
    out = tmp_path / name if make == "file" else tmp_path / ("p" * 200) / ("q" * 2000) / name
    if make == "file":
        out.write_text("mine", encoding="utf-8")
    code = main(["build", str(bank), "-o", str(out), "--only", "check", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "\x1b" not in err and len(err.strip()) < 300, err
    assert err.count("\n") == 1 and "\\x1b" in err, err

# ------------------------------------------------------------ what a site's marker proves

def _built(tmp_path, capsys, name: str = "site") -> Path:
    bank = tmp_path / "bank"
    if not bank.exists():
        write(bank / "a.toml", "a")
    site = tmp_path / name
    assert main(["build", str(bank), "-o", str(site), "--only", "check", "--quiet"]) == 0
    capsys.readouterr()
    return site


def _refused(tmp_path, capsys, folder: Path, *words: str) -> None:
    code = main(["build", str(tmp_path / "bank"), "-o", str(folder), "--only", "check",
                 "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert all(w in err for w in words), err
    assert not [p for p in folder.parent.iterdir() if p.name.endswith((".tmp", ".old"))]


@pytest.mark.parametrize("how", ["symlink", "hardlink", "copy"])
def test_a_marker_that_is_a_link_or_a_copy_does_not_make_a_users_folder_replaceable(
        tmp_path, capsys, how):
    """(found) notes/.derive-site a link to a real site's marker: notes/ was replaced whole
    and notes.txt lost."""
    site = _built(tmp_path, capsys)
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "notes.txt").write_text("mine\n", encoding="utf-8")
    marker = site / ".derive-site"
    if how == "symlink":
        (notes / ".derive-site").symlink_to(marker)
    elif how == "hardlink":
        os.link(marker, notes / ".derive-site")
    else:
        (notes / ".derive-site").write_bytes(marker.read_bytes())
    _refused(tmp_path, capsys, notes, "-o ", {"symlink": "is a link", "hardlink": "hard link",
                                              "copy": "notes.txt is not one derive wrote"}[how])
    assert (notes / "notes.txt").read_text(encoding="utf-8") == "mine\n"
    assert (notes / ".derive-site").exists()


def test_a_users_file_added_inside_a_real_site_is_never_deleted(tmp_path, capsys):
    site = _built(tmp_path, capsys)
    _built(tmp_path, capsys)  # a site as derive left it is replaced
    (site / "a" / "notes.txt").write_text("mine\n", encoding="utf-8")
    _refused(tmp_path, capsys, site, "a/notes.txt is not one derive wrote", "move it out")
    assert (site / "a" / "notes.txt").read_text(encoding="utf-8") == "mine\n"
    (site / "a" / "notes.txt").unlink()
    (site / "index.html").write_text("edited\n", encoding="utf-8")  # one of derive's, edited
    _refused(tmp_path, capsys, site, "index.html was changed since derive wrote it")
    assert (site / "index.html").read_text(encoding="utf-8") == "edited\n"


def test_a_marker_of_an_older_derive_or_written_by_hand_is_not_enough(tmp_path, capsys):
    site = tmp_path / "site"
    site.mkdir()
    (site / "notes.txt").write_text("mine\n", encoding="utf-8")
    (site / ".derive-site").write_text("a site built by derive 0.1.0 (derive build); derive "
                                       "build may replace this folder whole\n", encoding="utf-8")
    write(tmp_path / "bank" / "a.toml", "a")
    _refused(tmp_path, capsys, site, "lists no files")
    assert (site / "notes.txt").is_file()


# ------------------------------------------------------------------- links in the cache

def test_nothing_is_written_through_a_link_inside_the_cache(tmp_path, capsys, own_cache):
    """(found) a cache subfolder that is a symbolic link was followed: 45 entries written into
    the folder it points to."""
    from derive.cli.cache import Cache

    Cache.open()  # the folder and its secret
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for n in range(256):
        (own_cache / f"{n:02x}").symlink_to(elsewhere)
    bank = tmp_path / "bank"
    for name in ("a", "b"):
        write(bank / f"{name}.toml", name)
    for n in range(2):
        assert main(["build", str(bank), "-o", str(tmp_path / f"site{n}"), "--lang", "en"]) == 0
        assert "2 computed, 0 from the cache" in capsys.readouterr().out
    assert main(["check", str(bank)]) == 0
    capsys.readouterr()
    assert list(elsewhere.iterdir()) == []
    assert all((own_cache / f"{n:02x}").is_symlink() for n in range(256))


def test_a_cache_entry_that_is_a_link_is_a_miss_never_read(tmp_path, capsys, own_cache):
    bank = tmp_path / "bank"
    write(bank / "a.toml", "a")
    assert main(["build", str(bank), "-o", str(tmp_path / "site0"), "--lang", "en"]) == 0
    entries = [p for p in own_cache.rglob("*.t") if p.is_file()]
    assert entries
    for path in entries:  # each the same bytes, but through a link
        real = tmp_path / "real" / path.name
        real.parent.mkdir(exist_ok=True)
        real.write_bytes(path.read_bytes())
        path.unlink()
        path.symlink_to(real)
    capsys.readouterr()
    assert main(["build", str(bank), "-o", str(tmp_path / "site1"), "--lang", "en"]) == 0
    assert "1 computed, 0 from the cache" in capsys.readouterr().out


# ------------------------------------------------------------ the cache gone mid-build

def test_a_cache_deleted_during_a_warm_build_means_recomputing(tmp_path, capsys, own_cache,
                                                              monkeypatch):
    """(found) the cache deleted between reading the bank and writing the site (the docs say
    it may be deleted at any time): the build failed, "the cache lost … build again"."""
    import shutil

    from derive.cli import build

    bank = tmp_path / "bank"
    for name in ("a", "b"):
        write(bank / f"{name}.toml", name)
    cold = tmp_path / "cold"
    assert main(["build", str(bank), "-o", str(cold), "--lang", "en"]) == 0
    real, calls = build.load_bank, []

    def then_deleted(*args, **kwargs):
        items = real(*args, **kwargs)
        calls.append(sum(i.cached for i in items))
        if len(calls) == 1:
            shutil.rmtree(own_cache)
        return items

    monkeypatch.setattr(build, "load_bank", then_deleted)
    capsys.readouterr()
    warm = tmp_path / "warm"
    code = main(["build", str(bank), "-o", str(warm), "--lang", "en"])
    out, err = capsys.readouterr()
    assert code == 0 and err == "", err
    assert calls == [2, 0] and "2 computed, 0 from the cache" in out

    def files(site):
        return {str(p.relative_to(site)): p.read_bytes() for p in site.rglob("*")
                if p.is_file()}
    assert files(warm) == files(cold)


# ------------------------------------------------------------- a path the system refuses

def test_a_site_path_too_long_for_the_file_system_refuses_that_file_only(tmp_path, capsys):
    """(found) one file whose site path is too long (ENAMETOOLONG) sank the whole build
    without naming it."""
    bank = tmp_path / "bank"
    deep = bank.joinpath(*["d" * 250] * 15, "e" * 150)  # fits in PATH_MAX (4096) ...
    write(deep / "a.toml", "a")
    write(bank / "b.toml", "b")
    site = tmp_path / ("s" * 200)  # ... the site's, longer by this name, does not
    code = main(["build", str(bank), "-o", str(site), "--only", "check", "--lang", "en",
                 "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and err == "", err
    index = (site / "index.html").read_text(encoding="utf-8")
    assert index.count("too long for this file system") == 1, index
    assert " … " not in index, index  # one line as written, not cut in its middle (found)
    assert "a.toml" in index and (site / "b" / "b" / "check.txt").is_file()
