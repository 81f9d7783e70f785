# simbridge guest service in a Windows 10/11 guest (run once in the base image, as Administrator).
# UNTESTED here: the project has no Windows machine; every step is standard Windows administration.
# Run after deploy/msfs/setup-guest.ps1 (SimConnect.xml, its firewall, the agent user's AppLocker).
#   powershell -ExecutionPolicy Bypass -File setup-guest-service.ps1 -HarnessIp 192.168.251.1 -PilotUser pilot
param(
  [Parameter(Mandatory)] [string] $HarnessIp,
  [Parameter(Mandatory)] [string] $PilotUser,      # the interactive user whose desktop shows MSFS
  [int] $Port = 7010,
  [string] $Python = "C:\Program Files\Python311\python.exe",
  [string] $Venv = "C:\simbridge\venv",
  [string] $TokenFile = "C:\simbridge\episode.token"
)
$ErrorActionPreference = "Stop"

# 1. a venv with simbridge and the guest extra only (mss, pyautogui, pillow)
& $Python -m venv $Venv
& "$Venv\Scripts\pip.exe" install "simbridge[guest]"

# 2. the per-episode token file: written by the host before each episode (virtio channel or
#    the base image's provisioning), readable by the pilot user only
New-Item -ItemType File -Force -Path $TokenFile | Out-Null
icacls $TokenFile /inheritance:r /grant:r "${PilotUser}:(R)" "SYSTEM:(F)" "Administrators:(F)" | Out-Null

# 3. the guest service must run in the pilot's interactive session (a Windows service in
#    session 0 has no desktop to capture or type into): a scheduled task at the pilot's logon
$action = New-ScheduledTaskAction -Execute "$Venv\Scripts\simbridge.exe" `
  -Argument "guest --listen 0.0.0.0:$Port --token-file $TokenFile"
$trigger = New-ScheduledTaskTrigger -AtLogOn -User $PilotUser
$settings = New-ScheduledTaskSettingsSet -ExecutionTimeLimit 0 -RestartCount 99 -RestartInterval (New-TimeSpan -Minutes 1)
Register-ScheduledTask -TaskName "simbridge guest" -Action $action -Trigger $trigger -Settings $settings `
  -User $PilotUser -RunLevel Limited -Force | Out-Null

# 4. firewall: the guest service answers the harness host only
Get-NetFirewallRule -DisplayName "simbridge guest *" -ErrorAction SilentlyContinue | Remove-NetFirewallRule
New-NetFirewallRule -DisplayName "simbridge guest $Port from harness" -Direction Inbound -Protocol TCP `
  -LocalPort $Port -RemoteAddress $HarnessIp -Action Allow | Out-Null
New-NetFirewallRule -DisplayName "simbridge guest $Port block others" -Direction Inbound -Protocol TCP `
  -LocalPort $Port -RemoteAddress Any -Action Block | Out-Null

# 5. the desktop the agent sees: auto-logon of the pilot, no lock screen, no sleep, 100 % scaling
#    (pyautogui and mss work in physical pixels only when the display is not scaled)
powercfg /change monitor-timeout-ac 0
powercfg /change standby-timeout-ac 0
New-Item -Force -Path "HKLM:\SOFTWARE\Policies\Microsoft\Windows\Personalization" | Out-Null
Set-ItemProperty -Path "HKLM:\SOFTWARE\Policies\Microsoft\Windows\Personalization" -Name NoLockScreen -Value 1
Write-Host "done: set auto-logon for $PilotUser (Sysinternals Autologon), display scaling 100 %, then"
Write-Host "check: Get-ScheduledTask 'simbridge guest'; Get-NetFirewallRule -DisplayName 'simbridge*'"
