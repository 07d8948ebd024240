#!/usr/bin/env python3
"""Tests of the documentation's own checks (ctest -R docs_checks).

check_env.py must fail, naming the file to edit, when a variable read in
the code has no row in environment.md and when a row names a variable the
code never reads; the man-page families must send every name of OpenSHMEM
1.6 and of the profiling interface to the page that documents it, with no
name claimed by two pages.
"""
import pathlib
import subprocess
import sys
import tempfile
import unittest

TOOLS = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(TOOLS))
sys.path.insert(0, str(TOOLS.parent / "man"))
import families  # noqa: E402
import man_links  # noqa: E402


def run_check_env(code, rows):
    with tempfile.TemporaryDirectory() as d:
        top = pathlib.Path(d)
        (top / "dart/src/core").mkdir(parents=True)
        (top / "dart/src/core/config.cpp").write_text(code)
        (top / "docs").mkdir()
        table = "| variable | default | meaning |\n|---|---|---|\n"
        table += "".join(f"| `{r}` | 0 | a setting |\n" for r in rows)
        (top / "docs/environment.md").write_text("# Environment variables\n\n" + table)
        r = subprocess.run([sys.executable, str(TOOLS / "check_env.py"), str(top)], capture_output=True, text=True)
        return r.returncode, r.stderr


class CheckEnv(unittest.TestCase):
    CODE = 'void f() { read_flag("DART_STATS", &a); auto v = std::getenv("SHMEM_DEBUG"); }\n'

    def test_agreeing_manual_passes(self):
        rc, err = run_check_env(self.CODE, ["DART_STATS", "SHMEM_DEBUG"])
        self.assertEqual(rc, 0, err)

    def test_variable_missing_from_manual_fails_naming_the_row_to_add(self):
        rc, err = run_check_env(self.CODE, ["DART_STATS"])
        self.assertEqual(rc, 1)
        self.assertIn("SHMEM_DEBUG is read in dart/src/core/config.cpp", err)
        self.assertIn("'| `SHMEM_DEBUG` | default | meaning |' to the table of its part in docs/environment.md", err)

    def test_variable_read_nowhere_fails(self):
        rc, err = run_check_env(self.CODE, ["DART_STATS", "SHMEM_DEBUG", "DART_GONE"])
        self.assertEqual(rc, 1)
        self.assertIn("DART_GONE is documented in docs/environment.md but read nowhere", err)


class Families(unittest.TestCase):
    def page(self, name):
        return man_links.page_of(name, families.FAMILIES, families.TYPE, families.SIZE)

    def test_openshmem_16_names_reach_their_pages(self):
        expected = {
            "shmem_int_sum_inscan": "shmem_sum_inscan", "shmem_uint64_sum_exscan": "shmem_sum_inscan",
            "shmem_ibput": "shmem_ibput", "shmem_long_ibput": "shmem_ibput", "shmem_ctx_double_ibput": "shmem_ibput",
            "shmem_ibput8": "shmem_ibput", "shmem_ibput128": "shmem_ibput", "shmem_ctx_ibput64": "shmem_ibput",
            "shmem_ibget": "shmem_ibget", "shmem_int_ibget": "shmem_ibget", "shmem_ctx_ibget16": "shmem_ibget",
            "shmem_ctx_session_start": "shmem_ctx_session_start",
            "shmem_ctx_session_stop": "shmem_ctx_session_start",
            "shmem_query_initialized": "shmem_init", "shmem_pe_quiet": "shmem_quiet",
            "shmem_ctx_signal_set": "shmem_signal_add",
        }
        for name, page in expected.items():
            self.assertEqual(self.page(name), (page, 3), name)

    def test_pshmem_names_follow_their_shmem_routine(self):
        for name in ["shmem_int_put", "shmem_ctx_long_atomic_fetch_add_nbi", "shmem_barrier_all",
                     "shmem_putmem_signal_nbi", "shmem_int_sum_inscan", "shmemx_last_error"]:
            self.assertIsNotNone(self.page(name), name)
            self.assertEqual(self.page("p" + name), self.page(name), name)

    def test_unknown_routine_has_no_page(self):
        self.assertIsNone(self.page("shmem_int_frobnicate"))

    def test_listed_names_are_claimed_by_one_page(self):
        seen = {}
        for page, _section, _summary, names, _patterns in families.FAMILIES:
            for n in names:
                self.assertNotIn(n, seen, f"{n} listed by {seen.get(n)} and {page}")
                seen[n] = page


if __name__ == "__main__":
    unittest.main()
