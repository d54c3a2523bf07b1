"""What tests share besides fixtures: helper modules only, never a test module or conftest."""
