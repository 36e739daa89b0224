"""The objects' providers: streaming (``/v1/r2``) and signed URLs on the read plane; uploads, the members'
listing and download (``reader()``) and the deletion (``writer()``) on the portal."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.platform import aws
from core.platform.providers import media_url_secret, per_container
from core.platform.settings import get_settings

if TYPE_CHECKING:  # each provider imports what it builds: a function loads the modules it uses, no others
    from core.objects.notifications import StorageNotifications
    from core.objects.reader import ObjectReader
    from core.objects.service import MediaService
    from core.objects.signed_urls import MediaUrlService
    from core.objects.storage_store import StorageStore
    from core.objects.uploads import UploadService
    from core.objects.write_store import ObjectStore
    from core.objects.writer import ObjectService


@per_container
def media() -> MediaService:
    from core.objects.service import MediaService
    from core.objects.store import ObjectReadStore

    settings = get_settings()
    store = ObjectReadStore(aws.s3(), settings.content_bucket)
    return MediaService(store, settings.r2_cache_control, settings.r2_max_response_bytes)


@per_container
def signed_urls() -> MediaUrlService:
    from core.objects.signed_urls import MediaUrlService

    return MediaUrlService(media_url_secret)


def write_store() -> ObjectStore:
    """The writer's S3 store (posts and items check the objects they name through it). Its client is made at its
    first call: a posts or items list, a deletion, never calls S3 (core.platform.aws.LazyClient)."""
    from core.objects.write_store import ObjectStore

    return ObjectStore(aws.LazyClient("s3"), get_settings().content_bucket)


@per_container
def uploads() -> UploadService:
    from core.audit import providers as audit
    from core.objects.upload_store import UploadStore
    from core.objects.uploads import UploadService
    from core.workspaces import providers as workspaces

    settings = get_settings()
    return UploadService(workspaces.access(), write_store(), UploadStore(aws.dynamodb(), settings.main_table),
                         storage(), audit.writes(), url_seconds=settings.upload_url_seconds)  # fmt: skip


def storage() -> StorageStore:
    """The storage counter and its keys' records (the signing, the deletion, S3's notifications, the purge)."""
    from core.objects.storage_store import StorageStore

    return StorageStore(aws.dynamodb(), get_settings().main_table)


@per_container
def reader() -> ObjectReader:
    """The members' listing and download."""
    from core.objects.reader import ObjectReader
    from core.workspaces import providers as workspaces

    return ObjectReader(workspaces.access(), write_store())


@per_container
def writer() -> ObjectService:
    from core.audit import providers as audit
    from core.objects.writer import ObjectService
    from core.workspaces import providers as workspaces

    return ObjectService(workspaces.access(), write_store(), storage(), audit.writes())


@per_container
def notifications() -> StorageNotifications:
    """S3's notifications of new and deleted objects, applied to the storage counter (the purge queue's worker)."""
    from core.objects.notifications import StorageNotifications

    return StorageNotifications(storage(), write_store())
