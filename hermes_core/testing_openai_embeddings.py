"""The OpenAI-compatible model server with embeddings, under the import path its users know.

The implementation lives in :mod:`hermes_core.testing.embedding_server`; see it for the details.
Standard library only.
"""
from __future__ import annotations

from hermes_core.testing.embedding_server import (DEFAULT_DIMS, EmbeddingModelServer, content_words, embed_text,
                                                  embeddings_reply, extraction_reply, is_extraction_request)

__all__ = ["DEFAULT_DIMS", "EmbeddingModelServer", "content_words", "embed_text", "embeddings_reply", "extraction_reply", "is_extraction_request"]
