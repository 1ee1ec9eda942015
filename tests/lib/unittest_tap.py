"""Run Python unittest tests and report each in TAP (tests/lib/tap.sh's format).

    python3 tests/lib/unittest_tap.py -s START_DIR [-p PATTERN] [-t TOP_DIR]

One line per test method: "ok N - module.Class.test", "not ok N - ..." (the
traceback follows as "#" comments), "ok N - ... # SKIP why"; a failed subTest
fails its test. Then the plan, and status 1 if a test failed or errored.
"""
import argparse
import sys
import unittest


class TapResult(unittest.TestResult):
    def __init__(self, stream):
        super().__init__()
        self.stream = stream
        self.number = 0
        self.problems = {}  # test id -> tracebacks of failed subtests

    def _line(self, text):
        self.stream.write(text + "\n")
        self.stream.flush()

    def _report(self, test, status, detail=None, directive=""):
        self.number += 1
        name = test.id()
        self._line(f"{status} {self.number} - {name}{directive}")
        for line in (detail or "").rstrip("\n").splitlines():
            self._line("#   " + line)

    def addSuccess(self, test):
        super().addSuccess(test)
        tracebacks = self.problems.pop(test.id(), None)
        if tracebacks:
            self._report(test, "not ok", "\n".join(tracebacks))
        else:
            self._report(test, "ok")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._report(test, "not ok", self._exc_info_to_string(err, test))

    def addError(self, test, err):
        super().addError(test, err)
        # Errors in setUpClass and the like come as _ErrorHolder "tests".
        self._report(test, "not ok", self._exc_info_to_string(err, test))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        reason = " ".join(str(reason).split())
        self._report(test, "ok", directive=f" # SKIP {reason}")

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._report(test, "ok", directive=" # TODO expected failure")

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._report(test, "not ok", "unexpected success")

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            self.problems.setdefault(test.id(), []).append(
                f"{subtest.id()}:\n" + self._exc_info_to_string(err, test))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-s", "--start-directory", default=".")
    parser.add_argument("-p", "--pattern", default="test*.py")
    parser.add_argument("-t", "--top-level-directory", default=None)
    args = parser.parse_args()
    suite = unittest.defaultTestLoader.discover(
        args.start_directory, pattern=args.pattern, top_level_dir=args.top_level_directory)
    result = TapResult(sys.stdout)
    suite.run(result)
    # A test whose only failures were subtests never reaches addSuccess.
    for name, tracebacks in result.problems.items():
        result.number += 1
        result._line(f"not ok {result.number} - {name}")
        for line in "\n".join(tracebacks).splitlines():
            result._line("#   " + line)
    print(f"1..{result.number}")
    print(f"# {result.testsRun} tests run, {len(result.failures)} failures, "
          f"{len(result.errors)} errors, {len(result.skipped)} skipped")
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
