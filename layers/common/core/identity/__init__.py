"""Identity: users, sign-in (magic link, Google and Apple ID tokens), sessions and the portal JWT.

- ``sessions.py``: ``SessionCheck.authenticate`` — every authenticated portal request's check of its JWT and session
- ``sign_in.py``: ``IdentityService`` — sign-in, refresh, sign-out; ``portal_jwt.py`` the token, ``oidc.py`` the
  ID tokens' keys, ``mail.py`` and ``mail_limits.py``
  the magic link's mail and its throttle
- ``store.py``: ``UserStore`` (users and sessions); ``records.py``, ``models.py`` (sign-in bodies, ``Account``)
- ``providers.py``: ``users()``, ``sessions()``, ``sign_in()``, ``mailer()``
"""
