"""Turning raw text and files into sentences Orma can index and cite."""

from orma_proxy.text.files import TEXT_SUFFIXES, FilePiece, check_text_file, read_pieces
from orma_proxy.text.grams import SQL_FUNCTION, cjk_grams, query_grams
from orma_proxy.text.segment import Segment, split_sentences

__all__ = [
    "SQL_FUNCTION",
    "TEXT_SUFFIXES",
    "FilePiece",
    "Segment",
    "check_text_file",
    "cjk_grams",
    "query_grams",
    "read_pieces",
    "split_sentences",
]
