"""A module that fails to import."""
import no_such_dependency_for_verbsurface  # noqa: F401
