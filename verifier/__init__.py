"""The fairdeal protocol and its reference checker. Pure: bytes in, report out."""
