"""S3's checks of a browser-based upload (POST Object), in front of moto, which stores one whatever its policy says.

``policy`` is the WSGI middleware; it reads the form (``form``), checks the SigV4 fields and signature
(``signature``), then the policy's expiration and conditions (``conditions``).
"""
