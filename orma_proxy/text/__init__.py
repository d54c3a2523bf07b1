"""Turning raw text and files into sentences Orma can index and cite."""
