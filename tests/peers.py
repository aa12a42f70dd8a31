"""External peers the suite checks against (Weka, Java, Chromium, Spark, Node.js): skip or fail.

On a developer's machine a missing peer skips its tests with the reason. In CI
(``CI=true``, as ``.ci/run`` is run) the same absence is a failure: CI installs every
peer, so a skip there would hide a broken install and let the external checks go
silently green.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

WEKA_JAR = Path(os.environ.get("WEKA_JAR", "/usr/share/java/weka.jar"))
CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))


def in_ci() -> bool:
    """True when the suite runs under CI (``CI`` set to a true value)."""
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def missing(reason: str) -> None:
    """Skip with ``reason`` on a developer's machine; fail with it in CI."""
    if in_ci():
        pytest.fail(f"CI must have every peer installed: {reason}", pytrace=False)
    pytest.skip(reason)


def require_java() -> None:
    """Java and javac on PATH (Weka's drivers are compiled at test time, Spark runs on it)."""
    if shutil.which("java") is None or shutil.which("javac") is None:
        missing("Java is absent: java and javac are needed (apt-get install default-jdk-headless)")


def require_weka() -> Path:
    """The Weka 3.6 jar (Debian's ``weka``) and a JDK; returns the jar's path."""
    if not WEKA_JAR.is_file():
        missing(f"Weka is absent: no jar at {WEKA_JAR} (apt-get install weka, or set WEKA_JAR)")
    require_java()
    return WEKA_JAR


def require_chromium() -> Path:
    """Debian's chromium (browser tests, figure export); returns its path."""
    if not CHROMIUM.is_file():
        missing(f"Debian's chromium is not installed at {CHROMIUM} (apt-get install chromium)")
    return CHROMIUM


def require_node() -> str:
    """Debian's Node.js (runs the footer's key handler's decision without a browser);
    returns its path."""
    node = shutil.which("node")
    if node is None:
        missing("Node.js is not installed (apt-get install nodejs)")
    return node


def require_spark() -> None:
    """A Java runtime (``heb.scale.spark_engine.java_available``) and pyspark: Spark's
    tests run on ``local[*]`` sessions."""
    from heb.scale.spark_engine import java_available

    if not java_available():
        missing("Spark tests need a Java runtime (install a JDK or set JAVA_HOME)")
    require_module("pyspark", "Spark tests run on a local Spark session")


def require_module(name: str, why: str):
    """Import ``name`` or skip (fail in CI) with ``why``."""
    try:
        return __import__(name, fromlist=["_"])
    except ImportError:
        missing(f"the Python package {name!r} is not installed: {why}")
