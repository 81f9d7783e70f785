# simbridge MSFS guest setup (run once in the base image, as Administrator). UNTESTED here: the
# project has no Windows machine; every step is standard Windows administration, review it.
#   powershell -ExecutionPolicy Bypass -File setup-guest.ps1 -HarnessIp 192.168.251.1 -GuestIp 192.168.251.10
param(
  [Parameter(Mandatory)] [string] $HarnessIp,
  [Parameter(Mandatory)] [string] $GuestIp,
  [string] $FlightsDir = "C:\simbridge\flights",
  [string] $FlightsSource = "$PSScriptRoot\..\..\adapters\msfs\flights",
  [string] $AgentUser = "agent"
)
$ErrorActionPreference = "Stop"

# 1. the task flights the session loads with FlightLoad (adapters/msfs/flights of a simbridge checkout)
New-Item -ItemType Directory -Force -Path $FlightsDir | Out-Null
Copy-Item -Force "$FlightsSource\*.FLT" $FlightsDir

# 2. SimConnect.xml: a global IPv4 server on the guest NIC, port 500
$xml = (Get-Content "$PSScriptRoot\SimConnect.xml" -Raw).Replace("GUEST_IP", $GuestIp)
$targets = @("$env:LOCALAPPDATA\Packages\Microsoft.FlightSimulator_8wekyb3d8bbwe\LocalCache",
             "$env:APPDATA\Microsoft Flight Simulator")
foreach ($t in $targets) { if (Test-Path $t) { Set-Content -Encoding Default -Path "$t\SimConnect.xml" -Value $xml } }

# 3. firewall: SimConnect (500, and the 2048 fallback) answers the harness host only
foreach ($p in 500, 2048) {
  Get-NetFirewallRule -DisplayName "simbridge SimConnect $p*" -ErrorAction SilentlyContinue | Remove-NetFirewallRule
  New-NetFirewallRule -DisplayName "simbridge SimConnect $p from harness" -Direction Inbound -Protocol TCP `
    -LocalPort $p -RemoteAddress $HarnessIp -Action Allow | Out-Null
  New-NetFirewallRule -DisplayName "simbridge SimConnect $p block others" -Direction Inbound -Protocol TCP `
    -LocalPort $p -RemoteAddress Any -Action Block | Out-Null
}
# Windows Firewall does not filter loopback: the agent user is kept off SimConnect by step 4
# (it may run MSFS and the agent port service only), not by a port rule.

# 4. the agent user: a standard user that may run MSFS and the simbridge agent port, nothing else
if (-not (Get-LocalUser -Name $AgentUser -ErrorAction SilentlyContinue)) {
  $pw = Read-Host -AsSecureString "password for $AgentUser"
  New-LocalUser -Name $AgentUser -Password $pw -AccountNeverExpires | Out-Null
}
Set-Service -Name AppIDSvc -StartupType Automatic
Start-Service AppIDSvc
$sid = (Get-LocalUser -Name $AgentUser).SID.Value
$policy = "$env:TEMP\simbridge-applocker.xml"
(Get-Content "$PSScriptRoot\applocker-agent.xml" -Raw).Replace("AGENT_SID", $sid) | Set-Content -Path $policy
Set-AppLockerPolicy -XmlPolicy $policy -Merge
Write-Host "done: check with Get-AppLockerPolicy -Effective and Get-NetFirewallRule -DisplayName 'simbridge*'"
