// The page's stylesheet: the feeds' layout, InboxKit and Material looks, the marks of what is wrong.
extension HTMLReport {
    static let stylesheet = """
        :root{color-scheme:light;font:14px/1.4 -apple-system,"Helvetica Neue",Arial,sans-serif;color:#1c1c1e}
        body{margin:0;background:#f2f2f7}
        .summary{background:#fff;padding:16px 20px;border-bottom:1px solid #d1d1d6}
        h1{margin:0 0 8px;font-size:22px}h2{font-size:15px;color:#6c6c70;margin:20px 0 8px}
        .counts{display:flex;flex-wrap:wrap;gap:8px;list-style:none;margin:0;padding:0}
        .count{background:#f2f2f7;border-radius:8px;padding:4px 10px}
        .count.warn{background:#fff3cd;color:#7a5200}.count.bad{background:#fde2e1;color:#a4161a}
        .options{color:#6c6c70;margin:8px 0 0}.empty{text-align:center;color:#6c6c70;padding:24px}
        .left-out{color:#6c6c70;font-size:13px;padding:12px 16px;margin:0}
        .tab{position:absolute;opacity:0;pointer-events:none}
        .tabs{display:flex;gap:6px;overflow-x:auto;padding:8px 12px;position:sticky;top:0;z-index:2;background:#f2f2f7}
        .tabs label{white-space:nowrap;padding:4px 12px;border-radius:14px;background:#e5e5ea;cursor:pointer}
        .feed{display:none;box-sizing:border-box;max-width:420px;margin:0 auto;padding:0 12px}
        .inputs,.passes{max-width:420px;margin:0 auto;padding:0 12px}
        @media (min-width:900px){.tabs{display:none}
        .feeds{display:flex;gap:16px;align-items:flex-start;overflow-x:auto;padding:0 16px}
        .feed{display:block;flex:0 0 390px;margin:0;padding:0}.inputs,.passes{max-width:820px}}
        .card{background:#fff;border-radius:14px;margin:0 0 14px;padding:10px;box-shadow:0 1px 3px #0002}
        .card.degraded{outline:3px solid #f0ad00}.card.broken{outline:3px solid #d62828}
        .card::before{content:attr(data-card-id) " · " attr(data-kind);display:block;font-size:11px;color:#6c6c70;
        margin-bottom:6px;overflow-wrap:anywhere}
        .meta{font-size:11px;color:#6c6c70;margin-bottom:8px;overflow-wrap:anywhere}
        .kind{font-weight:600;color:#1c1c1e}code{font-size:12px}
        .verdict{margin:8px 0 0;font-size:14px}.verdict.bad b{color:#d62828}.verdict.ok b{color:#1a7f37}
        .root-causes{margin-top:8px;font-size:13px}.excused{color:#6c6c70;font-style:italic}
        .explains summary{cursor:pointer;color:#6c6c70}.explains ul{margin:2px 0;padding-left:18px}
        .tag{border-radius:4px;padding:0 4px;background:#e5e5ea;font-weight:700}
        .tag.warn{background:#f0ad00;color:#fff}.tag.bad{background:#d62828;color:#fff}
        .cell{position:relative}
        .pin{display:inline-block;white-space:nowrap;font-size:11px;font-weight:600;color:#007aff;background:#e5f0ff;
        border-radius:10px;padding:1px 8px;margin-bottom:6px}
        .pin::before{content:"";display:inline-block;width:6px;height:6px;border-radius:50%;background:currentColor;
        margin-right:4px;vertical-align:1px}
        .cell>time{display:flex;gap:6px;align-items:center;justify-content:flex-end;font-size:11px;color:#8e8e93}
        .unread .cell>time::before{content:"";width:8px;height:8px;border-radius:50%;background:#007aff}
        .img{background:#e5e5ea center/cover no-repeat;border-radius:10px;display:flex;align-items:center;
        justify-content:center;color:#6c6c70;font-size:12px;overflow:hidden;position:relative;text-align:center}
        .img.hero{width:100%;aspect-ratio:16/9}.kind-banner .img.hero{aspect-ratio:2/1;border-radius:14px}
        .img.poster{width:100%;aspect-ratio:16/9}
        .img.failed{background:repeating-linear-gradient(45deg,#fde2e1,#fde2e1 8px,#fff 8px,#fff 16px);color:#a4161a;
        font-weight:600}
        .img.looks-wrong{outline:3px dashed #f0ad00;outline-offset:-3px}
        .mark{position:absolute;left:4px;right:4px;bottom:4px;background:#fff3cde6;color:#7a5200;border-radius:6px;
        font-size:11px;padding:2px 4px}
        .text{padding:8px 2px;overflow-wrap:anywhere;min-width:0}.no-text{color:#8e8e93;font-style:italic}
        .title{font-weight:600;font-size:15px;display:-webkit-box;-webkit-box-orient:vertical;-webkit-line-clamp:2;
        overflow:hidden}
        .body{color:#3a3a3c;display:-webkit-box;-webkit-box-orient:vertical;-webkit-line-clamp:3;overflow:hidden}
        .kind-classic .title,.kind-legacy .title{-webkit-line-clamp:1}.kind-classic .body{-webkit-line-clamp:2}
        .ph{border-bottom:1px dotted #007aff}.ph.missing{background:#fde2e1;color:#a4161a}
        .classic,.captioned{display:flex;gap:10px;align-items:center}.classic .text,.captioned .text{flex:1}
        .avatar{width:48px;height:48px;border-radius:50%;flex:none}.icon32{width:32px;height:32px;border-radius:50%;
        flex:none}
        .initial{display:flex;align-items:center;justify-content:center;color:#fff;font-size:22px;font-weight:700}
        .icon32.initial{font-size:15px}
        .buttons{display:flex;gap:8px;flex-wrap:wrap;margin-top:6px}
        .button{border:1px solid #007aff;color:#007aff;border-radius:8px;padding:3px 10px;text-decoration:none}
        .slides{display:flex;gap:8px;overflow-x:auto;scroll-snap-type:x mandatory;scrollbar-width:none}
        .slide{margin:0;flex:0 0 85%;scroll-snap-align:start}
        .slide .img{width:100%;aspect-ratio:4/3}.slide figcaption{font-size:12px;color:#3a3a3c;padding-top:3px}
        .slide.failed figcaption{color:#a4161a;font-weight:600}
        .slide.empty{flex:1;padding:20px;text-align:center;color:#a4161a;background:#fde2e1;border-radius:10px}
        .dots{display:flex;gap:6px;justify-content:center;padding:6px 0 2px}
        .dots a{width:7px;height:7px;border-radius:50%;background:#c7c7cc}.dots a:first-child{background:#1c1c1e}
        .dots a.failed{background:#d62828}
        .video{position:relative;background:#000;border-radius:10px}
        .play{position:absolute;left:50%;top:50%;transform:translate(-50%,-50%);width:48px;height:48px;
        border-radius:50%;background:#fffc;color:#000;display:flex;align-items:center;justify-content:center;
        font-size:22px}
        .play.failed{background:#d62828;color:#fff}
        .wallet-row{padding:8px 0 2px}.wallet-button{display:inline-block;background:#000;color:#fff;border-radius:8px;
        padding:7px 14px;font-weight:600}.wallet-button.failed{background:#d62828;text-decoration:line-through}
        .android{font-family:Roboto,"Noto Sans",Arial,sans-serif}
        .android .card{border-radius:12px;box-shadow:0 1px 2px #0003,0 1px 3px 1px #0001}
        .android .img{border-radius:8px}.android .kind-banner .img.hero{border-radius:12px}
        .android .pin{color:#6750a4;background:#eaddff;border-radius:8px}.android .unread .cell>time::before{background:#6750a4}
        .android .button{border-color:#6750a4;color:#6750a4;border-radius:20px}
        .android .kind-legacy{border-radius:0;box-shadow:none;border-bottom:1px solid #d1d1d6;margin:0;padding:10px 4px}
        .android .kind-legacy .avatar{width:40px;height:40px}
        .reason{margin-top:8px;padding:6px 8px;border-radius:8px;font-size:12px}
        .reason.warn{background:#fff3cd}.reason.bad{background:#fde2e1}
        .reason code,.pass code{overflow-wrap:anywhere}
        .findings{margin:4px 0 0;padding-left:18px;font-size:12px}.findings .error .sev{color:#d62828;font-weight:700}
        .findings .warning .sev{color:#b07800;font-weight:700}.findings .info .sev{color:#6c6c70}
        .card-findings{margin-top:6px;font-size:12px}.path,.source{color:#6c6c70}
        .pass{background:#fff;border-radius:10px;padding:8px;margin-bottom:8px}
        .pass.invalid{outline:2px solid #d62828}

        """
}
