"""The runner, provider and agent-port tests use the `sandbox` fixture of tests/local_sandbox.py
(a private Xvfb, torn down after each test), loaded for every folder by tests/conftest.py."""
