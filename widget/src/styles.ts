// The widget's CSS, inside its shadow root: the shop's styles never reach in, ours never leak out.
// Panels with rules of their own (games, badges, quests, promo) bring them in a <style> of their own,
// so a script without those panels carries none of them. Sides are logical (start/end, inline/block),
// so a right-to-left language mirrors the layout by itself.
export const CSS = `
:host{all:initial}
.root{font-family:var(--pc-font,system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif);text-align:start;line-height:1.4}
*{box-sizing:border-box}
button,input{font:inherit;color:inherit}
button{cursor:pointer}
:focus-visible{outline:3px solid var(--pc-primary);outline-offset:2px}
.i{width:1.25em;height:1.25em;flex:none;vertical-align:-.25em;fill:none;stroke:currentColor;stroke-width:2;stroke-linecap:round;stroke-linejoin:round}
[dir=rtl] .i-back{transform:scaleX(-1)}
.launcher{position:fixed;bottom:20px;z-index:2147483000;height:52px;min-width:52px;padding:0 18px;border:0;border-radius:26px;background:var(--pc-primary);color:#fff;font-weight:600;font-size:15px;box-shadow:0 6px 20px rgba(0,0,0,.25);display:flex;align-items:center;gap:8px;max-width:calc(100vw - 40px)}
.launcher .i{fill:currentColor}.launcher bdi{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.launcher:focus-visible{outline-color:var(--pc-text)}
.left{left:20px}.right{right:20px}
.backdrop{position:fixed;inset:0;z-index:2147482999;background:rgba(17,24,39,.3);animation:pc-fade var(--pc-speed)}
.drawer{position:fixed;bottom:84px;z-index:2147483001;width:380px;max-width:calc(100vw - 24px);height:min(620px,calc(100vh - 104px));display:flex;flex-direction:column;background:var(--pc-bg);color:var(--pc-text);border-radius:calc(var(--pc-radius) + 4px);box-shadow:0 12px 40px rgba(0,0,0,.3);overflow:hidden;font-size:14px;animation:pc-in var(--pc-speed) ease-out}
.custom.drawer{bottom:20px}
@keyframes pc-in{from{opacity:0;transform:translateY(12px)}}
@keyframes pc-fade{from{opacity:0}}
@media (max-width:480px){.drawer,.custom.drawer{left:0;right:0;bottom:0;width:100%;max-width:100%;height:88vh;border-radius:calc(var(--pc-radius) + 4px) calc(var(--pc-radius) + 4px) 0 0}}
@media (max-height:520px){.drawer,.custom.drawer{top:8px;bottom:8px;height:auto}}
header{flex:none;display:flex;align-items:center;gap:4px;min-height:56px;padding-block:8px;padding-inline:16px 6px;background:var(--pc-primary);color:#fff}
.sub{padding-inline-start:6px}
h2{flex:1;min-width:0;margin:0;font-size:17px;overflow-wrap:anywhere}
h3{margin:18px 0 6px;font-size:14px}
.x,.back{flex:none;display:grid;place-items:center;background:transparent;border:0;color:#fff;font-size:20px;width:40px;height:40px;border-radius:8px}
.x:focus-visible,.back:focus-visible{outline-color:#fff;outline-offset:-3px}
.body{flex:1;min-height:0;padding:12px 16px 16px;overflow-y:auto;background:linear-gradient(var(--pc-bg) 30%,transparent) top/100% 32px no-repeat local,linear-gradient(transparent,var(--pc-bg) 70%) bottom/100% 32px no-repeat local,radial-gradient(farthest-side at 50% 0,rgba(0,0,0,.16),transparent) top/100% 10px no-repeat scroll,radial-gradient(farthest-side at 50% 100%,rgba(0,0,0,.16),transparent) bottom/100% 10px no-repeat scroll,var(--pc-bg)}
.body:focus-visible{outline-offset:-3px}
.hero{padding:14px;border-radius:var(--pc-radius);background:rgba(0,0,0,.04)}
.hello{margin:0 0 6px;font-weight:600;font-size:16px}
.big{font-size:34px;font-weight:700;color:var(--pc-primary);line-height:1.1}
.unit{font-size:15px;color:var(--pc-text)}
.level{margin-top:10px}
.bar{height:8px;border-radius:4px;background:rgba(0,0,0,.1);overflow:hidden;margin:6px 0 4px}.bar>i{display:block;height:100%;background:var(--pc-primary)}
.boost{display:flex;gap:8px;align-items:center;padding:8px 10px;border-radius:var(--pc-radius);background:#fef3c7;color:#713f12;margin:10px 0 0;font-weight:600}
.tiles{display:grid;grid-template-columns:repeat(auto-fill,minmax(128px,1fr));gap:6px;margin-top:14px}
.tile{width:100%;height:100%;min-height:42px;display:flex;align-items:center;gap:6px;padding:6px 8px;border:1px solid rgba(0,0,0,.14);border-radius:var(--pc-radius);background:transparent;font-size:13px;line-height:1.2;text-align:start;hyphens:auto;overflow-wrap:anywhere}
.tile .i{width:20px;height:20px;color:var(--pc-primary)}
.way{width:100%;display:flex;align-items:center;gap:10px;padding:10px 2px;border:0;background:transparent;text-align:start}
.way .i{color:var(--pc-primary)}
.tag{display:inline-block;margin-inline-start:6px;padding:1px 7px;border-radius:999px;background:#dcfce7;color:#14532d;font-size:11.5px;font-weight:600;white-space:nowrap}
.muted{opacity:.75;font-size:12px}
.stats{display:flex;gap:18px;margin-block:12px}
ul,ol{list-style:none;margin:0;padding:0}
.list>li{display:flex;justify-content:space-between;align-items:center;gap:10px;padding:9px 0;border-bottom:1px solid rgba(0,0,0,.08)}
.list>li:has(>.way){padding:0}
.btn{display:inline-flex;align-items:center;justify-content:center;gap:6px;border:0;border-radius:calc(var(--pc-radius) * .66);padding:8px 14px;background:var(--pc-primary);color:#fff;font-weight:600;min-height:36px;text-decoration:none}
.btn[disabled]{opacity:.45;cursor:not-allowed}
.ghost{background:transparent;color:var(--pc-primary);border:1px solid currentColor}
.card{border:1px solid rgba(0,0,0,.12);border-radius:var(--pc-radius);padding:12px;margin-bottom:10px}
.row{display:flex;gap:8px;align-items:center;flex-wrap:wrap}
.grow{flex:1;min-width:0}
.code{font-family:ui-monospace,monospace;font-size:15px;font-weight:700;letter-spacing:.05em;overflow-wrap:anywhere}
.coupon{white-space:nowrap}
.note{padding:8px 10px;border-radius:calc(var(--pc-radius) * .66);background:rgba(0,0,0,.05);margin:8px 0 12px}.note>p{margin:0 0 8px}
`;
export const MOTION_CSS = `.root{--pc-speed:220ms}@media (prefers-reduced-motion:reduce){.root{--pc-speed:1ms}}`;
