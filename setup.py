"""resources/ (top level, see the design's layout) ships inside the wheel as
client/resources, found at run time by client.ui.common.resources. Everything else is in
pyproject.toml; setup.py only because pyproject cannot map a package outside client/."""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["client*"]), "client.resources"],
    package_dir={"client.resources": "resources"},
    package_data={"client": ["py.typed"], "client.resources": ["**/*"]},
    exclude_package_data={"client.resources": ["**/*.ts", "screenshot*.png"]},
)
