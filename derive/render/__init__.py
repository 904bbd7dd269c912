"""Rendering: answer keys, reports and derivations as text, Markdown and JSON."""
