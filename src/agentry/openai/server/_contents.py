"""Contents of request parts that both APIs share."""

from __future__ import annotations

import mimetypes

from agentry.types import Content

__all__ = ["image_content"]


def image_content(url: str) -> Content:
    """An image by URL or `data:` URI; a URL's media type guessed from its name."""
    if url.startswith("data:"):
        return Content.from_uri(url)
    guessed = mimetypes.guess_type(url)[0]
    return Content.from_uri(url, guessed if guessed and guessed.startswith("image/") else None)
