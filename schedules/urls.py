from django.urls import path

from schedules.views import (
    ScheduleCancelView,
    ScheduleDetailView,
    ScheduleListView,
    SchedulePauseView,
    ScheduleResumeView,
)

SCHEDULE = "schedules/<uuid:schedule_uuid>"

urlpatterns = [
    path("schedules", ScheduleListView.as_view(), name="schedule-list"),
    path(SCHEDULE, ScheduleDetailView.as_view(), name="schedule-detail"),
    path(f"{SCHEDULE}/pause", SchedulePauseView.as_view(), name="schedule-pause"),
    path(f"{SCHEDULE}/resume", ScheduleResumeView.as_view(), name="schedule-resume"),
    path(f"{SCHEDULE}/cancel", ScheduleCancelView.as_view(), name="schedule-cancel"),
]
