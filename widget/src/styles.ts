// The widget's CSS, inside its shadow root: the shop's styles never reach in, ours never leak out.
// Panels with rules of their own (games, badges, quests, promo) bring them in a <style> of their own,
// so a script without those panels carries none of them.
export const CSS = `
:host{all:initial}
*{box-sizing:border-box;font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif}
button,input{font:inherit;color:inherit}
button{cursor:pointer}
:focus-visible{outline:3px solid var(--pc-primary);outline-offset:2px}
.launcher{position:fixed;bottom:20px;z-index:2147483000;height:52px;min-width:52px;padding:0 18px;border:0;border-radius:26px;background:var(--pc-primary);color:#fff;font-weight:600;font-size:15px;box-shadow:0 6px 20px rgba(0,0,0,.25);display:flex;align-items:center;gap:8px}
.launcher:focus-visible{outline-color:var(--pc-text)}
.left{left:20px}.right{right:20px}
.drawer{position:fixed;bottom:84px;z-index:2147483001;width:380px;max-width:calc(100vw - 24px);max-height:min(620px,calc(100vh - 104px));display:flex;flex-direction:column;background:var(--pc-bg);color:var(--pc-text);border-radius:16px;box-shadow:0 12px 40px rgba(0,0,0,.3);overflow:hidden;font-size:14px;animation:pc-in var(--pc-speed) ease-out}
.custom.drawer{bottom:20px}
@keyframes pc-in{from{opacity:0;transform:translateY(12px)}}
@media (max-width:480px){.drawer{left:0;right:0;bottom:0;width:100%;max-width:100%;max-height:88vh;border-radius:16px 16px 0 0}}
header{display:flex;align-items:center;justify-content:space-between;padding:14px 16px;background:var(--pc-primary);color:#fff}
h2{margin:0;font-size:17px}
h3{margin:14px 0 8px;font-size:14px}
.x{background:transparent;border:0;color:#fff;font-size:22px;line-height:1;width:36px;height:36px;border-radius:8px}
.x:focus-visible{outline-color:#fff}
[role=tablist]{display:flex;gap:4px;overflow-x:auto;padding:8px;border-bottom:1px solid rgba(0,0,0,.08);scrollbar-width:thin}
[role=tab]{flex:none;border:0;background:transparent;padding:7px 11px;border-radius:999px;white-space:nowrap}
[role=tab][aria-selected=true]{background:var(--pc-primary);color:#fff}
.body{padding:12px 16px 16px;overflow-y:auto}
.big{font-size:34px;font-weight:700;color:var(--pc-primary);line-height:1.1}
.muted{opacity:.7;font-size:12px}
.stats{display:flex;gap:18px;margin-top:8px}
ul{list-style:none;margin:0;padding:0}
li{display:flex;justify-content:space-between;align-items:center;gap:10px;padding:9px 0;border-bottom:1px solid rgba(0,0,0,.06)}
.plus{color:#15803d;font-weight:600}.minus{color:#b91c1c;font-weight:600}
.btn{border:0;border-radius:8px;padding:8px 14px;background:var(--pc-primary);color:#fff;font-weight:600;min-height:36px}
.btn[disabled]{opacity:.45;cursor:not-allowed}
.ghost{background:transparent;color:var(--pc-primary);border:1px solid currentColor}
.card{border:1px solid rgba(0,0,0,.1);border-radius:12px;padding:12px;margin-bottom:10px}
.row{display:flex;gap:8px;align-items:center;flex-wrap:wrap}
.grow{flex:1;min-width:0}
.code{font-family:ui-monospace,monospace;font-size:15px;font-weight:700;letter-spacing:.05em;overflow-wrap:anywhere}
.note{padding:8px 10px;border-radius:8px;background:rgba(0,0,0,.05);margin:8px 0}
`;
export const MOTION_CSS = `.root{--pc-speed:220ms}@media (prefers-reduced-motion:reduce){.root{--pc-speed:1ms}}`;
