from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

from config.home import home
from core import views as core_views
from core.forms import LoginForm
from draws.api import api_urls

urlpatterns = [
    path("", home, name="home"),  # reads every app: above them all
    # Browsers ask for /favicon.ico whatever the page links (admin pages, PDFs opened in a tab).
    path("favicon.ico", login_not_required(RedirectView.as_view(url=static("favicon.ico"), permanent=True))),
    path("", include("core.urls")),
    path("members/", include("members.urls")),
    path("promotions/", include("promotions.urls")),
    path("draws/", include("draws.urls")),
    path("proxies/", include("proxies.urls")),
    path("prizes/", include("prizes.urls")),
    path("records/", include("records.urls")),
    path("accounts/login/", auth_views.LoginView.as_view(authentication_form=LoginForm), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/password/", core_views.PasswordChangeView.as_view(), name="password_change"),
    path("accounts/password/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path("api/v1/", api_urls()),
    path("admin/", admin.site.urls),
]
